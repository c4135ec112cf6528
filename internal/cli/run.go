package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/internal/suggest"
)

type uiChoice int

const (
	autoUI uiChoice = iota
	forceTUI
	// demoUI: as autoUI, but the screen stays after the run (shadow demo
	// is a showcase a person asked for, browsed after the run ends).
	demoUI
)

func tuiCommand(s Streams, version string) *cobra.Command {
	var f runFlags
	c := &cobra.Command{
		Use:   "tui [flags] SPEC -- COMMAND [ARG...]",
		Short: "run a spec, always in the full-screen TUI",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCommand(cmd, args, &f, forceTUI, s, version)
		},
	}
	f.register(c.Flags())
	return c
}

// runCommand is `shadow [flags] SPEC -- COMMAND...` (and `shadow tui`):
// args are SPEC, then after the -- the command.
func runCommand(cmd *cobra.Command, args []string, f *runFlags, ui uiChoice, s Streams, version string) error {
	pos, command := args, []string(nil)
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		pos, command = args[:dash], args[dash:]
	}
	if len(pos) == 0 && !f.src.Any() {
		if cmd.Flags().NFlag() == 0 && len(command) == 0 {
			// Bare `shadow`: the whole usage, as an answer to "what is this".
			fmt.Fprint(s.Err, usageText)
			return exit(run.ExitUsage)
		}
		for _, a := range command {
			if strings.HasSuffix(a, ".json") || a == "-" {
				return usage("no SPEC before the --: %q after it is read as part of the command; write shadow [flags] %s -- COMMAND...", a, a)
			}
		}
		return usage("no SPEC: give a spec file (or - for stdin) before the --: shadow [flags] SPEC -- COMMAND...")
	}
	if len(pos) > 0 {
		if err := notACommand(cmd, pos[0]); err != nil {
			return err
		}
	}
	if len(pos) > 1 {
		return usage("one SPEC expected, got %q (put the command after --)", pos)
	}
	if f.json && f.events {
		return usage("--json and --events are exclusive")
	}
	if ui == forceTUI && !s.terminal(s.Out) {
		// Refused before the spec is read: a TUI without a terminal would
		// start the run, fail to draw, and leave it recorded as cancelled.
		return errNoTerminal("tui")
	}
	cwd, _ := os.Getwd()
	if cfg, set, err := applyConfig(cmd.Flags(), f.opts.Dir, cwd); err != nil {
		return err
	} else if len(set) > 0 && !f.quiet {
		fmt.Fprintf(s.Err, "shadow: flags from %s: %s\n", cfg, strings.Join(set, " "))
	}
	f.opts.Command = command
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	specPath := ""
	if len(pos) == 1 {
		specPath = pos[0]
	}
	p, err := untilSignal(ctx, func() (*run.Plan, error) { return planRun(ctx, specPath, f, s, version) })
	if err != nil {
		return err
	}
	return execute(ctx, p, f, ui, s)
}

// untilSignal runs plan (reading the spec, stdin included, resolving its
// edits, making the sandbox), and returns ctx's error (exit 130) as soon
// as a signal ends ctx, whatever phase plan is in: a spec of 50,000 edits
// or a stdin that never closes must not keep shadow from stopping. Plan
// writes no record and runs nothing; what it is doing when shadow exits
// is left undone.
func untilSignal(ctx context.Context, plan func() (*run.Plan, error)) (*run.Plan, error) {
	type planned struct {
		p   *run.Plan
		err error
	}
	done := make(chan planned, 1)
	go func() {
		p, err := plan()
		done <- planned{p, err}
	}()
	select {
	case r := <-done:
		if r.err == nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return r.p, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// notACommand refuses a SPEC that is no file and reads as a typo of a
// command (`shadow lgo`), naming the command it was most likely meant to
// be; any other missing file is left to the spec loader's message.
func notACommand(cmd *cobra.Command, spec string) error {
	if spec == "-" || strings.ContainsAny(spec, "./\\") {
		return nil
	}
	if _, err := os.Stat(spec); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var names []string
	for _, c := range cmd.Root().Commands() {
		if !c.Hidden {
			names = append(names, c.Name())
		}
	}
	if near := suggest.Closest(spec, names); near != "" {
		return usage("%q is neither a command nor a spec file here: did you mean `shadow %s`? (shadow -h lists the commands)", spec, near)
	}
	return nil
}

// planRun loads the spec (none: specPath "") with the hypotheses of
// --patch, --ref and --worktrees added, and plans the run the flags
// describe.
func planRun(ctx context.Context, specPath string, f *runFlags, s Streams, version string) (*run.Plan, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, specErr("current directory: %v", err)
	}
	spec, specDir := &engine.Spec{}, cwd
	if specPath != "" {
		spec, specDir, err = engine.LoadSpec(specPath, s.In)
		if err != nil {
			return nil, specErr("%v", err)
		}
	}
	if f.src.Any() {
		ws, _, err := run.ResolveWorkspace(f.opts.Dir, cwd)
		if err != nil {
			return nil, specErr("%v", err)
		}
		// "baseline" stays --baseline's (a source named so would be
		// taken for the unchanged checkout).
		taken := map[string]bool{"baseline": true}
		for _, h := range spec.Hypotheses {
			taken[strings.ToLower(h.Name)] = true
		}
		more, err := f.src.Hypotheses(ws, cwd, taken)
		if err != nil {
			return nil, err
		}
		spec.Hypotheses = append(spec.Hypotheses, more...)
		if err := spec.Validate(); err != nil {
			return nil, specErr("%v", err)
		}
	}
	o := f.opts
	o.Cwd, o.Notices, o.Version = cwd, s.Err, version
	if f.quiet {
		o.Notices = io.Discard
	}
	p, err := run.NewPlan(ctx, spec, specDir, o)
	if err != nil {
		return nil, outsideRepoHint(err, f.opts.Dir, cwd)
	}
	return p, nil
}

// execute runs a validated plan with the UI the flags and the terminal
// call for.
func execute(ctx context.Context, p *run.Plan, f *runFlags, ui uiChoice, s Streams) error {
	if wantTUI(f, ui, s) {
		return runTUI(ctx, p, ui, s)
	}
	var sinks []func(engine.Event)
	if f.events {
		enc := json.NewEncoder(s.Out)
		sinks = append(sinks, func(ev engine.Event) { _ = enc.Encode(ev) })
	}
	// Progress lines on stderr: always for the text report; with --json or
	// --events only when stderr is a terminal (a person is waiting), so an
	// agent's captured stderr stays clean.
	if !f.quiet && ((!f.json && !f.events) || s.terminal(s.Err)) {
		sinks = append(sinks, progressPrinter(s.Err))
	}
	rep, err := p.Run(ctx, sinks...)
	if err != nil {
		return envErr("%v", err)
	}
	switch {
	case f.events:
	case f.json:
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	default:
		writeTextReport(s.Out, rep, s.colorOn(f.color, s.Out))
	}
	return exit(run.ExitCode(ctx, rep))
}

// writeTextReport writes the text report through termSafe, coloured
// after: what the spec and the hypotheses wrote into it (the command, the
// winner's diff, names, reasons, errors) is theirs, the terminal is the
// user's, so no escape sequence of theirs reaches it (as `shadow show`).
func writeTextReport(w io.Writer, rep *engine.Report, color bool) {
	var b bytes.Buffer
	engine.WriteText(newTermSafe(&b), rep)
	if color {
		w.Write(colorReport(b.Bytes()))
		return
	}
	w.Write(b.Bytes())
}

// wantTUI: `shadow tui` always; otherwise only when a person is at a
// terminal on both stdin and stdout (Streams.interactive: not under CI or
// TERM=dumb) and no headless output was asked for. Anything else gets the
// text report, so a harness never waits on a screen nobody reads.
func wantTUI(f *runFlags, ui uiChoice, s Streams) bool {
	if ui == forceTUI {
		return true
	}
	if f.headless || f.json || f.events {
		return false
	}
	return s.interactive()
}

// errNoTerminal refuses a full-screen command whose stdout is not a
// terminal (exit 3: the environment cannot do what was asked), naming
// what works there instead.
func errNoTerminal(cmd string) error {
	if cmd == "watch" {
		return envErr("watch needs a terminal, and stdout is not one: run it in a terminal or a tmux pane (shadow log lists the runs without one)")
	}
	return envErr("%s needs a terminal, and stdout is not one: nothing was run (use --headless for the text report, --json or --events for a program)", cmd)
}
