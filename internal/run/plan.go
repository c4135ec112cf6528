// Package run is the run service every front end uses: NewPlan validates
// a run (workspace, spec and option precedence, in-place recovery, bases,
// sandbox choice) before anything runs or is written, and (*Plan).Run
// records and runs it. It prints nothing: refusals are *Error values that
// carry their exit code, notices go to Options.Notices.
package run

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/parse"
	"github.com/shadow-dev/shadow/snap"
)

// DefaultTimeout is a hypothesis's timeout when neither the spec nor the
// options give one.
const DefaultTimeout = 10 * time.Minute

// Plan is a validated run, ready to Run.
type Plan struct {
	cfg      engine.Config
	specJSON []byte
	store    snap.Store
	bases    map[string]snap.BaseRef // each hypothesis's base, as resolved
	freeze   bool
	noRecord bool
	noWarm   bool // --no-warm
	copySkip bool // --copy-skip given: copy mode leaves heavy dirs out
	remote   bool // the hypotheses run on --remote nodes
	// jobsGiven: -j or the spec's "jobs" was set (a remote run otherwise
	// takes as many as its nodes offer).
	jobsGiven bool
	notices   io.Writer
}

// Workspace is the checkout the run is on.
func (p *Plan) Workspace() string { return p.cfg.Workspace }

// Hypotheses are the run's hypotheses, resolved (the baseline added).
func (p *Plan) Hypotheses() []engine.Hypothesis { return p.cfg.Hyps }

// Store is where the run is recorded.
func (p *Plan) Store() snap.Store { return p.store }

// Recorded reports whether the run will be recorded in the store.
func (p *Plan) Recorded() bool { return !p.noRecord }

// Config is the engine configuration the run starts from (tests inspect
// it; Run adds the run id, log dir and event sinks).
func (p *Plan) Config() engine.Config { return p.cfg }

// NewPlan validates everything before anything runs or is written:
// options, spec (specDir: where its edits' "file" sources are relative
// to), workspace, command and sandbox. ctx bounds the wait for the
// workspace lock when an interrupted in-place run must be recovered
// first. A refusal is an *Error (or ctx's error).
func NewPlan(ctx context.Context, spec *engine.Spec, specDir string, o Options) (*Plan, error) {
	command := o.Command
	if len(command) == 0 {
		command = spec.Command
	}
	if len(command) == 0 {
		return nil, Usage("no command: give one after --, or \"command\" in the spec")
	}
	ws, subdir, err := ResolveWorkspace(o.Dir, o.Cwd)
	if err != nil {
		return nil, Usage("%v", err)
	}
	store, storeErr := snap.DefaultStore()
	if storeErr == nil {
		if err := recoverWorkspace(ctx, store, ws, &o); err != nil {
			return nil, err
		}
	}
	bases := &baseResolver{store: store, storeErr: storeErr, ws: ws, resolved: map[string]string{}}
	lim := engine.Limits{MaxEditSize: o.MaxEditSize}
	hyps, err := engine.ResolveContext(ctx, spec, specDir, ws, bases.resolve, lim)
	if ctx.Err() != nil {
		return nil, ctx.Err() // a signal: exit 130, nothing written
	}
	if err != nil {
		return nil, Usage("%v", err)
	}
	if o.Baseline {
		if hyps, err = withBaseline(hyps, spec, specDir, ws, lim); err != nil {
			return nil, Usage("%v", err)
		}
	}
	hyps, testsFrom, err := layTestsFrom(ctx, o.notices(), o.TestsFrom, o.Cwd, spec, specDir, ws, lim, hyps)
	if err != nil {
		return nil, err
	}
	confirm := spec.Confirm
	if o.Confirm < 0 || o.Confirm > engine.MaxConfirm {
		return nil, Usage("--confirm %d: want 0 to %d reruns", o.Confirm, engine.MaxConfirm)
	}
	if o.Confirm > 0 {
		confirm = o.Confirm
	}
	timeout := DefaultTimeout
	if spec.Timeout != "" {
		if timeout, err = ParseTimeout(spec.Timeout); err != nil {
			return nil, Usage("--timeout %q: %v", spec.Timeout, err)
		}
	}
	if o.Timeout < 0 {
		return nil, Usage("--timeout %s: want a positive duration such as 90s or 5m", o.Timeout)
	}
	if o.Timeout > 0 {
		timeout = o.Timeout
	}
	jobs := runtime.NumCPU()
	if spec.Jobs > 0 {
		jobs = spec.Jobs
	}
	if o.Jobs < 0 {
		return nil, Usage("-j %d: want a positive number", o.Jobs)
	}
	if o.Jobs > 0 {
		jobs = o.Jobs
	}
	net, tmp, err := netTmp(o, spec)
	if err != nil {
		return nil, err
	}
	if o.Writable, err = writablePaths(o, spec, ws, ShadowDirs(store)); err != nil {
		return nil, err
	}
	if err := netLimits(&o, spec, net); err != nil {
		return nil, err
	}
	mode, err := ParseMode(string(o.Mode))
	if err != nil {
		return nil, Usage("--mode %q: %v", o.Mode, err)
	}
	o.Mode = mode
	if err := checkUpper(&o); err != nil {
		return nil, err
	}
	if storeErr != nil {
		return nil, Env("%v", storeErr)
	}
	env := os.Environ()
	for k, v := range spec.Env {
		env = append(env, k+"="+v)
	}
	if len(o.Remote) == 0 {
		if err := commandFound(command[0], env, ws); err != nil {
			return nil, err
		}
	}
	specJSON, _ := json.MarshalIndent(spec, "", "  ")
	specHyps := hyps
	hyps, shardInfo, err := shardHyps(o, spec, specJSON, ws, command, hyps)
	if err != nil {
		return nil, err
	}
	p := &Plan{store: store, specJSON: specJSON, bases: bases.refs(spec), freeze: o.Freeze, noRecord: o.NoRecord, noWarm: o.NoWarm, copySkip: len(o.CopySkip) > 0, notices: o.notices(),
		jobsGiven: o.Jobs > 0 || spec.Jobs > 0}
	p.cfg = engine.Config{
		MaxOutput: o.MaxOutput,
		Workspace: ws, Subdir: subdir, Command: command, Hyps: hyps, Jobs: jobs, Timeout: timeout,
		Env: env, Net: string(net), Tmp: string(tmp), JUnit: spec.JUnit, Keep: o.Keep, Apply: o.Apply,
		TestPaths: spec.TestPaths, AllowTestEdits: o.AllowTestEdits || spec.AllowTestEdits, Confirm: confirm,
		AllowSuspicious: o.AllowSuspicious || spec.AllowSuspicious,
		NewParser:       func(cmd []string) engine.TestParser { return parse.NewStream(cmd) },
		ParseJUnit:      parse.ParseJUnit,
		// The state dir may lie inside the checkout (a workspace at $HOME),
		// and so may $TMPDIR/shadow-UID (a workspace at /tmp): their records,
		// logs and copies change during every run and are not sources.
		ScanExclude: ShadowDirs(store),
		// The cross phase (--no-cross) and what --apply writes of the
		// winner's tests (--with-tests).
		NoCross: o.NoCross || spec.NoCross, WithTests: o.WithTests,
		Shard:     shardInfo,
		TestsFrom: testsFrom,
	}
	if shardInfo != nil {
		p.cfg.ShardHyps = specHyps // the cross phase plans every proposal of the spec
	}
	nodes, err := remoteNodes(&o, spec)
	if err != nil {
		return nil, err
	}
	if len(nodes) > 0 && o.Upper == UpperRAM {
		return nil, Usage("--upper ram: remote nodes keep upper dirs on their own disks; drop --upper ram or --remote")
	}
	p.remote = len(nodes) > 0
	if p.cfg.Sandbox, err = newSandbox(&o, net, tmp, store, ws, nodes); err != nil {
		return nil, err
	}
	if err := checkHyps(p.cfg.Sandbox, ws, p.cfg.Hyps); err != nil {
		return nil, err
	}
	return p, nil
}

// checkUpper refuses --upper and --upper-size where they mean nothing:
// a RAM upper is overlay mode's (copy and in-place runs have no upper
// dir), and a size caps only a RAM upper.
func checkUpper(o *Options) error {
	u, err := ParseUpper(string(o.Upper))
	if err != nil {
		return Usage("--upper %q: %v", o.Upper, err)
	}
	o.Upper = u
	if o.UpperSize < 0 {
		return Usage("--upper-size %d: want a positive size such as 4G", o.UpperSize)
	}
	if o.UpperSize > 0 && u != UpperRAM {
		return Usage("--upper-size caps a RAM upper: give --upper ram too")
	}
	if u == UpperRAM && (o.Mode == ModeCopy || o.Mode == ModeInplace) {
		return Usage("--upper ram: --mode %s has no upper dirs (only overlay mode does); drop one of them", o.Mode)
	}
	return nil
}

// withBaseline adds a hypothesis "baseline" with no edits of its own (the
// spec's common part applies to it too), first, unless there is a baseline
// or a hypothesis of that name.
func withBaseline(hyps []engine.Hypothesis, spec *engine.Spec, specDir, ws string, lim engine.Limits) ([]engine.Hypothesis, error) {
	for _, h := range hyps {
		if h.IsBaseline() || h.Name == "baseline" {
			return hyps, nil
		}
	}
	b, err := engine.ResolveBaseline(spec, specDir, ws, lim)
	if err != nil {
		return nil, err
	}
	return append([]engine.Hypothesis{b}, hyps...), nil
}

// netTmp is the run's network and /tmp: the options' over the spec's over
// the defaults, each validated by ParseNet / ParseTmp.
func netTmp(o Options, spec *engine.Spec) (Net, Tmp, error) {
	net, tmp := o.Net, o.Tmp
	var err error
	if net == "" {
		if net, err = ParseNet(spec.Net); err != nil {
			return "", "", Usage("--net %q: %v", spec.Net, err)
		}
	}
	if tmp == "" {
		if tmp, err = ParseTmp(spec.Tmp); err != nil {
			return "", "", Usage("--tmp %q: %v", spec.Tmp, err)
		}
	}
	if _, err := ParseNet(string(net)); err != nil {
		return "", "", Usage("--net %q: %v", net, err)
	}
	if _, err := ParseTmp(string(tmp)); err != nil {
		return "", "", Usage("--tmp %q: %v", tmp, err)
	}
	// net stays "" when neither says, as tmp does: overlay mode's default
	// is a private network namespace per hypothesis (overlay/net_linux.go),
	// copy and in-place modes share the host's.
	// tmp stays "" when neither says: overlay mode's default is a fresh
	// tmpfs per hypothesis (the seal, overlay/nsinit/seal_linux.go); copy
	// mode gives each copy its own TMPDIR and in-place mode shares /tmp.
	return net, tmp, nil
}
