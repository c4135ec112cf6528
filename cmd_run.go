package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/parse"
	"github.com/shadow-dev/shadow/snap"
)

type uiChoice int

const (
	autoUI uiChoice = iota
	forceTUI
)

// runFlags are the flags of a run (DESIGN.md §1).
type runFlags struct {
	dir, mode, net, tmp, timeout string
	jobs                         int
	apply, baseline, keep        bool
	freeze                       bool
	noRecord, headless           bool
	json, events                 bool
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.dir, "C", "", "workspace root")
	fs.IntVar(&f.jobs, "j", 0, "hypotheses at once")
	fs.StringVar(&f.timeout, "timeout", "", "per-hypothesis timeout")
	fs.StringVar(&f.mode, "mode", "auto", "auto|overlay|inplace")
	fs.BoolVar(&f.apply, "apply", false, "write the winner into the checkout")
	fs.BoolVar(&f.baseline, "baseline", false, "add a baseline hypothesis")
	fs.StringVar(&f.net, "net", "", "host|isolated")
	fs.StringVar(&f.tmp, "tmp", "", "shared|private")
	fs.BoolVar(&f.keep, "keep", false, "keep upper dirs in the record")
	fs.BoolVar(&f.freeze, "freeze", false, "run on a copy of the source files taken at the start")
	fs.BoolVar(&f.noRecord, "no-record", false, "do not record the run")
	fs.BoolVar(&f.headless, "headless", false, "never the TUI")
	fs.BoolVar(&f.json, "json", false, "JSON report on stdout")
	fs.BoolVar(&f.events, "events", false, "NDJSON events on stdout")
}

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
	plan, code := planRun(pos[0], command, &f, os.Stdin)
	if plan == nil {
		return code
	}
	return execute(plan, &f, ui, os.Stdout)
}

// plan is a validated run, ready to execute.
type plan struct {
	cfg      engine.Config
	specJSON []byte
	store    snap.Store
	verdict  overlay.Verdict
	bases    map[string]snap.BaseRef // each hypothesis's base, as resolved
	freeze   bool
}

// planRun validates everything before anything runs or is written: flags,
// spec, workspace, command and sandbox mode.
func planRun(specPath string, command []string, f *runFlags, stdin io.Reader) (*plan, int) {
	spec, specDir, err := engine.LoadSpec(specPath, stdin)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, usageErr("current directory: %v", err)
	}
	p, perr := planRunIn(cwd, spec, specDir, command, f)
	if perr != nil {
		return nil, perr.print()
	}
	return p, 0
}

// planError is a refusal by planRunIn: nothing ran and nothing was written.
type planError struct {
	code    int // exitUsage or exitEnv
	msg     string
	printed bool // already explained on stderr (the sandbox choice does)
}

func (e *planError) Error() string { return e.msg }

func refuse(format string, a ...any) *planError {
	return &planError{code: exitUsage, msg: fmt.Sprintf(format, a...)}
}

// print explains the refusal on stderr, as the CLI does, and returns its
// exit code.
func (e *planError) print() int {
	switch {
	case e.printed:
	case e.code == exitUsage:
		usageErr("%s", e.msg)
	default:
		fmt.Fprintln(os.Stderr, "shadow:", e.msg)
	}
	return e.code
}

// planRunIn is planRun for a decoded spec (specDir: where its edits' "file"
// sources are relative to) and a given working directory, with refusals as
// values: the MCP server plans runs for many directories in one process and
// hands the messages back to its client.
func planRunIn(cwd string, spec *engine.Spec, specDir string, command []string, f *runFlags) (*plan, *planError) {
	if len(command) == 0 {
		command = spec.Command
	}
	if len(command) == 0 {
		return nil, refuse("no command: give one after --, or \"command\" in the spec")
	}
	ws, subdir, err := resolveWorkspace(f.dir, cwd)
	if err != nil {
		return nil, refuse("%v", err)
	}
	if perr := recoverWorkspace(ws); perr != nil {
		return nil, perr
	}
	bases := newBaseResolver(ws)
	hyps, err := engine.Resolve(spec, specDir, ws, bases.resolve)
	if err != nil {
		return nil, refuse("%v", err)
	}
	if f.baseline {
		has := false
		for _, h := range hyps {
			if h.IsBaseline() || h.Name == "baseline" {
				has = true
			}
		}
		if !has {
			hyps = append([]engine.Hypothesis{{Name: "baseline"}}, hyps...)
		}
	}
	timeout := 10 * time.Minute
	for _, t := range []string{spec.Timeout, f.timeout} {
		if t == "" {
			continue
		}
		d, err := time.ParseDuration(t)
		if err != nil || d <= 0 {
			return nil, refuse("--timeout %q: want a positive duration such as 90s or 5m", t)
		}
		timeout = d
	}
	jobs := runtime.NumCPU()
	if spec.Jobs > 0 {
		jobs = spec.Jobs
	}
	if f.jobs < 0 {
		return nil, refuse("-j %d: want a positive number", f.jobs)
	}
	if f.jobs > 0 {
		jobs = f.jobs
	}
	net, tmp := pick(f.net, spec.Net, "host"), pick(f.tmp, spec.Tmp, "shared")
	if net != "host" && net != "isolated" {
		return nil, refuse("--net %q: want host or isolated", net)
	}
	if tmp != "shared" && tmp != "private" {
		return nil, refuse("--tmp %q: want shared or private", tmp)
	}
	switch f.mode {
	case "auto", "overlay", "inplace":
	default:
		return nil, refuse("--mode %q: want auto, overlay or inplace", f.mode)
	}
	root, err := snap.DefaultRoot()
	if err != nil {
		return nil, &planError{code: exitEnv, msg: err.Error()}
	}
	store := snap.Store{Root: root}
	env := os.Environ()
	for k, v := range spec.Env {
		env = append(env, k+"="+v)
	}
	specJSON, _ := json.MarshalIndent(spec, "", "  ")
	p := &plan{store: store, specJSON: specJSON, bases: bases.refs(spec), freeze: f.freeze}
	p.cfg = engine.Config{
		Workspace: ws, Subdir: subdir, Command: command, Hyps: hyps, Jobs: jobs, Timeout: timeout,
		Env: env, Net: net, Tmp: tmp, JUnit: spec.JUnit, Keep: f.keep, Apply: f.apply,
		NewParser:  func(cmd []string) engine.TestParser { return parse.NewStream(cmd) },
		ParseJUnit: parse.ParseJUnit,
		// The state dir may lie inside the checkout (a workspace at $HOME):
		// its records change during every run and are not sources.
		ScanExclude: []string{root},
	}
	sb, code := chooseSandbox(f.mode, store, ws)
	if sb == nil {
		return nil, &planError{code: code, printed: true, msg: fmt.Sprintf("--mode %s: no sandbox for it on this machine (see shadow probe)", f.mode)}
	}
	// Isolation asked for and not available is refused, never silently
	// dropped: in-place runs share the host's network and /tmp.
	if sb.Mode() != "overlay" {
		for _, need := range []struct {
			on   bool
			flag string
		}{{net == "isolated", "--net isolated"}, {tmp == "private", "--tmp private"}, {f.freeze, "--freeze"}, {f.keep, "--keep"}} {
			if need.on {
				return nil, &planError{code: exitEnv, msg: fmt.Sprintf("%s needs overlay mode, and this run would be %s (see shadow probe)", need.flag, sb.Mode())}
			}
		}
	}
	p.cfg.Sandbox = sb
	return p, nil
}

func pick(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// resolveWorkspace finds the workspace root (-C, else the git top-level
// holding cwd, else cwd) and the command's directory inside it.
func resolveWorkspace(dir, cwd string) (ws, subdir string, err error) {
	switch {
	case dir != "":
		ws, err = filepath.Abs(dir)
		if err != nil {
			return "", "", err
		}
	default:
		out, gerr := exec.Command("git", "-C", cwd, "rev-parse", "--show-toplevel").Output()
		if gerr == nil && len(bytes.TrimSpace(out)) > 0 {
			ws = string(bytes.TrimSpace(out))
		} else {
			ws = cwd
		}
	}
	if ws, err = filepath.EvalSymlinks(ws); err != nil {
		return "", "", fmt.Errorf("workspace %s: %v", dir, err)
	}
	if fi, err := os.Stat(ws); err != nil || !fi.IsDir() {
		return "", "", fmt.Errorf("workspace %s is not a directory", ws)
	}
	if ws == "/" {
		return "", "", errors.New("the workspace cannot be / : pass -C with a project directory")
	}
	real, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		real = cwd
	}
	if rel, err := filepath.Rel(ws, real); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		subdir = filepath.ToSlash(rel)
	}
	return ws, subdir, nil
}

// execute runs a validated plan with the UI the flags and the terminal
// call for, and returns the exit code.
func execute(p *plan, f *runFlags, ui uiChoice, stdout io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if wantTUI(f, ui, stdout) {
		return runTUI(ctx, p, f)
	}
	var sinks []func(engine.Event)
	if f.events {
		enc := json.NewEncoder(stdout)
		sinks = append(sinks, func(ev engine.Event) { _ = enc.Encode(ev) })
	} else if !f.json {
		sinks = append(sinks, progressPrinter(os.Stderr))
	}
	rep, err := runPlan(ctx, p, f.noRecord, sinks...)
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
	return exitCode(rep)
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

// runPlan records the run (unless noRecord), runs it with the given event
// consumers after the recorder, and finishes the record. It is what every
// front end (headless, TUI, MCP) calls.
func runPlan(ctx context.Context, p *plan, noRecord bool, sinks ...func(engine.Event)) (*engine.Report, error) {
	now := time.Now()
	cfg := p.cfg
	cfg.RunID = snap.NewRunID(now)
	var fix func(engine.Event) // --freeze: first to see the report
	if p.freeze {
		var cleanup func()
		var err error
		if fix, cleanup, err = startFreeze(p, &cfg); err != nil {
			return nil, err
		}
		defer cleanup()
	}
	var rec *snap.Run
	if !noRecord {
		var err error
		rec, err = p.store.NewRunRetry(snap.Meta{Run: cfg.RunID, Workspace: cfg.Workspace, Subdir: cfg.Subdir,
			Command: cfg.Command, StartedAt: now.UTC(), PID: os.Getpid(), Hypotheses: hypNames(cfg.Hyps), Freeze: p.freeze}, p.specJSON)
		if err != nil {
			return nil, err
		}
		cfg.RunID = rec.ID
		recordInputs(rec, p, &cfg)
		cfg.LogDir = filepath.Join(rec.Dir, "hyps")
		sinks = append([]func(engine.Event){func(ev engine.Event) { _ = rec.AppendEvent(ev) }}, sinks...)
	} else {
		dir, err := os.MkdirTemp("", "shadow-"+cfg.RunID+"-")
		if err != nil {
			return nil, err
		}
		cfg.LogDir = dir
	}
	if fix != nil {
		sinks = append([]func(engine.Event){fix}, sinks...)
	}
	cfg.Emit = engine.Fanout(sinks...)
	rep := engine.Run(ctx, cfg)
	if rec != nil {
		if err := rec.Finish(rep); err != nil {
			fmt.Fprintln(os.Stderr, "shadow: record the report:", err)
		}
	}
	return rep, nil
}

// exitCode is 0 when a hypothesis passed (and --apply, if asked, wrote
// it), else 1.
func exitCode(rep *engine.Report) int {
	if rep.Winner == nil || rep.ApplyError != "" {
		return exitNone
	}
	return exitWinner
}
