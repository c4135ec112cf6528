package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/run"
)

type uiChoice int

const (
	autoUI uiChoice = iota
	forceTUI
)

// parseInterleaved parses flags that may stand before or after positional
// arguments, up to a "--", after which everything is the command.
func parseInterleaved(fs *flag.FlagSet, args []string) (pos, command []string, err error) {
	for i, a := range args {
		if a == "--" {
			command = args[i+1:]
			if command == nil {
				command = []string{}
			}
			args = args[:i]
			break
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, command, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func usageErr(format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "shadow: "+format+"\n", a...)
	fmt.Fprintln(os.Stderr, "run `shadow help` for usage")
	return exitUsage
}

func cmdRun(args []string, ui uiChoice) int {
	fs := flag.NewFlagSet("shadow", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f runFlags
	f.register(fs)
	pos, command, err := parseInterleaved(fs, args)
	if err != nil {
		if command == nil && !slices.Contains(args, "--") {
			// `shadow spec.json pytest -q`: the command's own flags read
			// as shadow's.
			return usageErr("%v (put the command after --: shadow SPEC -- COMMAND...)", err)
		}
		return usageErr("%v", err)
	}
	if len(pos) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return exitUsage
	}
	if len(pos) > 1 {
		return usageErr("one SPEC expected, got %q (put the command after --)", pos)
	}
	if f.json && f.events {
		return usageErr("--json and --events are exclusive")
	}
	f.opts.Command = command
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	plan, code := planRun(ctx, pos[0], &f, os.Stdin)
	if plan == nil {
		return code
	}
	return execute(ctx, plan, &f, ui, os.Stdout)
}

// planRun loads the spec and plans the run the flags describe, and
// explains a refusal on stderr (returning its exit code).
func planRun(ctx context.Context, specPath string, f *runFlags, stdin io.Reader) (*run.Plan, int) {
	spec, specDir, err := engine.LoadSpec(specPath, stdin)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, usageErr("current directory: %v", err)
	}
	o := f.opts
	o.Cwd, o.Notices, o.Version = cwd, os.Stderr, version
	p, err := run.NewPlan(ctx, spec, specDir, o)
	if err != nil {
		return nil, printRefusal(err)
	}
	return p, 0
}

// printRefusal explains a refusal on stderr and returns its exit code.
func printRefusal(err error) int {
	var re *run.Error
	switch {
	case errors.As(err, &re) && re.Code == exitUsage:
		return usageErr("%s", re.Msg)
	case errors.As(err, &re):
		fmt.Fprintln(os.Stderr, "shadow:", re)
		return re.Code
	case errors.Is(err, context.Canceled):
		return exitEnv
	}
	fmt.Fprintln(os.Stderr, "shadow:", err)
	return exitEnv
}

// execute runs a validated plan with the UI the flags and the terminal
// call for, and returns the exit code.
func execute(ctx context.Context, p *run.Plan, f *runFlags, ui uiChoice, stdout io.Writer) int {
	if wantTUI(f, ui, stdout) {
		return runTUI(ctx, p)
	}
	var sinks []func(engine.Event)
	if f.events {
		enc := json.NewEncoder(stdout)
		sinks = append(sinks, func(ev engine.Event) { _ = enc.Encode(ev) })
	} else if !f.json {
		sinks = append(sinks, progressPrinter(os.Stderr))
	}
	rep, err := p.Run(ctx, sinks...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shadow:", err)
		return exitEnv
	}
	switch {
	case f.events:
	case f.json:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	default:
		engine.WriteText(stdout, rep)
	}
	return run.ExitCode(rep)
}

// wantTUI: `shadow tui` always; otherwise only on a terminal and when no
// headless output was asked for.
func wantTUI(f *runFlags, ui uiChoice, stdout io.Writer) bool {
	if ui == forceTUI {
		return true
	}
	if f.headless || f.json || f.events {
		return false
	}
	file, ok := stdout.(*os.File)
	return ok && isTerminal(file)
}
