package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/shadow-dev/shadow/parse"
)

// Config is one run: the validated hypotheses, what to run them with and
// where their output goes.
type Config struct {
	RunID     string
	Workspace string // absolute checkout root
	Subdir    string // '/'-separated, relative to Workspace
	Command   []string
	Hyps      []Hypothesis
	Jobs      int           // at most this many at once (1 when the sandbox is serial)
	Timeout   time.Duration // per hypothesis; 0 = none
	Env       []string
	Net, Tmp  string
	JUnit     string // relative to the command's directory
	LogDir    string // each hypothesis's output goes to LogDir/NAME/output.log
	MaxOutput int64  // cap of each output.log (--max-output); 0 = DefaultMaxOutput
	Keep      bool   // keep what each command wrote in LogDir/NAME/upper
	// ScanExclude are absolute directories the staleness scan leaves out:
	// shadow's own state when it lies inside the checkout.
	ScanExclude []string
	Apply       bool // write the winner into the checkout
	// TestPaths are globs naming the test files (nil: DefaultTestPaths);
	// AllowTestEdits lets a candidate that changes the judge or loses
	// tests win (docs/report.md).
	TestPaths      []string
	AllowTestEdits bool
	// NoCross turns the cross phase off (--no-cross, "no_cross"): no
	// candidate's proposed tests run on the others (cross.go).
	NoCross bool
	// WithTests: --apply writes the winner's judge part (its proposed
	// tests) too, not only its code (--with-tests).
	WithTests bool
	// AllowSuspicious lets a candidate whose code the scan flagged win
	// (--allow-suspicious; engine/scan.go).
	AllowSuspicious bool
	// Confirm reruns the baseline and the leading candidate this many more
	// times before a winner is named (--confirm N; 0 = none).
	Confirm int
	// TestsFrom are the tests written before the candidates were seen
	// (--tests-from): already laid over every hypothesis's common part
	// (WithTestsFrom); here for the judge and the report.
	TestsFrom *TestsFrom
	Sandbox   Sandbox
	Emit      func(Event)
	// FixReport complete the report, in order, before run_finished is
	// emitted (--freeze's stale paths, the warm layer's field): consumers
	// only read it (engine.Broker delivers it to them concurrently).
	FixReport []func(*Report)
	// NewParser makes a test-output parser for a command; nil = no counts.
	NewParser func(command []string) TestParser
	// ParseJUnit reads a JUnit XML report; its counts win over the output's.
	ParseJUnit func([]byte) (*parse.Summary, error)
	// Now is the clock (tests pin it); nil = time.Now.
	Now func() time.Time

	// First, when set, names a hypothesis run alone before any other
	// starts; AfterFirst runs once it has ended, before the others start
	// (the home layer's baseline first: internal/run/warm.go). FirstWait,
	// when set, decides how long the others wait: it returns true once
	// ended is closed, false when they should start beside it (it hangs,
	// or runs too long to be worth waiting for); AfterFirst then never runs.
	First      string
	AfterFirst func(*Result)
	FirstWait  func(ended <-chan struct{}) bool

	// Shard: this run is one shard of a larger one (--shard K/N); the
	// report carries it for `shadow merge`. ShardHyps are every hypothesis
	// of the whole spec, resolved, in spec order (not part of the report):
	// the cross phase of a shard plans every proposal, not only its slice's.
	Shard     *ShardInfo
	ShardHyps []Hypothesis

	// canary is the run's tamper canary (canary.go; Run sets it).
	canary *canaryPlan

	// jobHyps is what each hypothesis's sandbox gets (Run sets it): its
	// code part under the checkout's judge (judged.go), or all of it with
	// AllowTestEdits.
	jobHyps map[string]Hypothesis
}

// Run runs every hypothesis and returns the ranked report. It returns when
// every job has ended; cancelling ctx cancels the run (queued hypotheses
// are reported as cancelled, running ones are ended).
func Run(ctx context.Context, cfg Config) *Report {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	em := newEmitter(cfg.RunID, cfg.Emit, now)
	started := now()
	rep := &Report{
		Schema: ReportSchema, Run: cfg.RunID, Workspace: cfg.Workspace, Subdir: cfg.Subdir,
		Command: cfg.Command, Mode: string(cfg.Sandbox.Mode()), StartedAt: started.UTC(),
		StalePaths: []string{}, Applied: []string{},
		CPUs: cpus(), Load: loadAvg(), Shard: cfg.Shard,
		Judged: !cfg.AllowTestEdits, AllowSuspicious: cfg.AllowSuspicious,
	}
	copyCost := startCopyCost(cfg.Sandbox)
	names := make([]string, len(cfg.Hyps))
	for i, h := range cfg.Hyps {
		names[i] = h.Name
	}
	jobs := cfg.Jobs
	if jobs <= 0 || !cfg.Sandbox.Parallel() {
		jobs = 1
	}
	em.emit(Event{Kind: KindRunStarted, Hypotheses: names, Mode: rep.Mode, Command: cfg.Command, Workspace: cfg.Workspace, Jobs: jobs})

	if h, ok := As[Holder](cfg.Sandbox); ok {
		defer h.HoldRun(ctx)()
	}
	if s, ok := As[SyncReporter](cfg.Sandbox); ok {
		rep.Sync = s.Syncs()
	}
	orig := ReadOriginals(cfg.Workspace, cfg.Hyps)
	// Every watch is set before the first hypothesis starts (engine/stale,
	// watch.go).
	stale := StartStaleWatch(cfg.Workspace, cfg.ScanExclude...)
	jd := newJudge(cfg.TestPaths, append(commonPaths(cfg.Hyps), cfg.TestsFrom.Paths()...))
	// Which files are tests, from the runner, on the checkout before any
	// candidate runs (collect.go).
	jd.collected = collectTests(ctx, &cfg)
	rep.TestCollection = jd.collected.report()
	cfg.canary = planCanary(cfg.Workspace, cfg.Subdir, cfg.Command)
	results := make([]*result, len(cfg.Hyps))
	splits := map[string]judgeSplit{}
	cfg.jobHyps = map[string]Hypothesis{}
	for i, h := range cfg.Hyps {
		results[i] = newResult(h, orig, filepath.Join(cfg.LogDir, h.Name, "output.log"))
		s := splitJudge(jd, h, existedIn(orig))
		splits[h.Name] = s
		results[i].judgeProposed = s.paths
		results[i].JudgeEdits = s.paths
		results[i].allowTestEdits = cfg.AllowTestEdits
		results[i].ProposedTests = listProposed(s, orig)
		cfg.jobHyps[h.Name] = overTestsFrom(h.WithCommon(), cfg.TestsFrom)
		if !cfg.AllowTestEdits {
			results[i].judged = true
			results[i].codeLines = results[i].ChangedLines - judgeLines(s, orig)
			cfg.jobHyps[h.Name] = s.code.WithCommon()
		}
		results[i].allowSuspicious = cfg.AllowSuspicious
		addSuspicious(results[i].Result, scanCode(jd, h, orig))
		addSuspicious(results[i].Result, gitRiskReason(cfg.Workspace, h, orig))
	}

	cp := newRunCrossPhase(&cfg, em, jd, splits, orig)
	prov := newProvisional(results, cfg.Hyps) // provisional.go: live fixed/broken

	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	order, first := runOrder(cfg.Hyps, cfg.First)
	for _, i := range order {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			results[i].Status = StatusCancelled
			rc := results[i].snapshot()
			em.emit(Event{Kind: KindHypFinished, Hyp: rc.Name, Result: rc})
			continue
		}
		if err := exhausted(cfg.Sandbox); err != nil {
			<-sem
			markNotRun(results[i].Result, err)
			rc := results[i].snapshot()
			em.emit(Event{Kind: KindHypFinished, Hyp: rc.Name, Result: rc})
			continue
		}
		wg.Add(1)
		ended := make(chan struct{})
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			runOne(ctx, &cfg, em, jd, cfg.jobHyps[cfg.Hyps[i].Name], results[i], now)
			rc := results[i].snapshot()
			prov.finished(results[i], rc)
			em.emit(Event{Kind: KindHypFinished, Hyp: rc.Name, Result: rc})
			close(ended)
			if cp != nil {
				cp.afterJudged(ctx, results[i], sem, now)
			}
		}(i)
		if i == first && waitFirst(cfg.FirstWait, ended) && cfg.AfterFirst != nil {
			cfg.AfterFirst(results[i].snapshot())
		}
	}
	if cp != nil {
		cp.startBaseline(ctx, sem, now)
	}
	wg.Wait()
	if cp != nil {
		cp.wait()
		cp.finish(results)
		rep.Shard = cp.shardInfo(cfg.Shard, results)
	}
	if !cfg.AllowTestEdits {
		judgedNotes(results, splits, orig, cp, cfg.Workspace)
	}

	rank(results, cfg.Hyps)
	// Every node failed before every hypothesis had run: the run stopped,
	// and says why (a node lost after the last one finished is no loss).
	if err := exhausted(cfg.Sandbox); err != nil && ctx.Err() == nil {
		for _, r := range results {
			if r.Status == StatusError {
				rep.Error = err.Error()
				break
			}
		}
	}
	if cfg.Confirm > 0 && ctx.Err() == nil && rep.Error == "" {
		if err := confirm(ctx, &cfg, em, jd, results, now); err != nil {
			rep.Error = err.Error()
		}
		if base := baselineOf(results, cfg.Hyps); base != nil {
			rep.BaselineFlaky = base.Flaky
		}
	}
	rep.Cancelled = ctx.Err() != nil
	rep.StalePaths = stale.Stop(orig)
	rep.Stale = len(rep.StalePaths) > 0
	fillTestsFrom(rep, results, cfg.TestsFrom, cfg.Workspace)
	fillContrast(results, cfg.Hyps, jd, orig)
	rep.Hypotheses = entries(results)
	rep.Seal = commonSeal(rep.Hypotheses)
	if w := Leader(results); w != nil && (cfg.Confirm == 0 || w.confirmed) {
		name := w.Name
		rep.Winner = &name
	}
	if cfg.Apply && rep.Winner != nil && !rep.Cancelled && rep.Error == "" {
		for _, h := range cfg.Hyps {
			if h.Name == *rep.Winner {
				if !cfg.WithTests && !cfg.AllowTestEdits {
					h = CodeOnly(h, splits[h.Name].paths)
				}
				applied, err := ApplyHypothesis(cfg.Workspace, h, orig)
				if err != nil {
					rep.ApplyError = err.Error()
				} else {
					rep.Applied = applied
				}
			}
		}
	}
	copyCost(rep)
	rep.DurationMS = now().Sub(started).Milliseconds()
	for _, fix := range cfg.FixReport {
		fix(rep)
	}
	em.emit(Event{Kind: KindRunFinished, Report: rep})
	return rep
}

// waitFirst waits for the first hypothesis's job to end, or as long as
// wait (when set) says; true when it ended.
func waitFirst(wait func(<-chan struct{}) bool, ended <-chan struct{}) bool {
	if wait == nil {
		<-ended
		return true
	}
	return wait(ended)
}

// runOrder is the order hypotheses start in: the spec's, with first (when
// it names one) moved to the front; the index of first, or -1.
func runOrder(hyps []Hypothesis, first string) ([]int, int) {
	at := -1
	for i, h := range hyps {
		if first != "" && h.Name == first {
			at = i
		}
	}
	order := make([]int, 0, len(hyps))
	if at >= 0 {
		order = append(order, at)
	}
	for i := range hyps {
		if i != at {
			order = append(order, i)
		}
	}
	return order, at
}

func newResult(h Hypothesis, orig map[string]FileState, log string) *result {
	r := &result{Result: &Result{Name: h.Name, Status: StatusQueued, Files: []string{}, Log: log, EditsTests: []string{}, TiesWith: []string{}}}
	var diff []byte
	for _, f := range h.Files {
		o := orig[f.Path]
		d, n := UnifiedDiff(f.Path, o.Content, o.Exists, f.Content, true)
		diff = append(diff, d...)
		r.ChangedLines += n
		r.Files = append(r.Files, f.Path)
	}
	for _, p := range h.Deletes {
		o := orig[p]
		if o.Exists && !o.Dir {
			d, n := UnifiedDiff(p, o.Content, true, nil, false)
			diff = append(diff, d...)
			r.ChangedLines += n
		}
		r.Deleted = append(r.Deleted, p)
	}
	r.Diff = capDiff(diff)
	return r
}

// maxReportDiff bounds the diff a result carries: it is copied into the
// hyp_finished and run_finished events and report.json, so a huge edit
// would be recorded several times over. `shadow show RUN/HYP` makes the
// whole diff again from the recorded files.
const maxReportDiff = 1 << 20

func capDiff(d []byte) string {
	if len(d) <= maxReportDiff {
		return string(d)
	}
	cut := d[:maxReportDiff]
	if i := lastIndexByte(cut, '\n'); i >= 0 {
		cut = cut[:i+1]
	}
	return string(cut) + fmt.Sprintf("[shadow: the diff is %s; the report keeps its first %s, `shadow show RUN/HYP` prints it whole]\n", FormatSize(int64(len(d))), FormatSize(maxReportDiff))
}

func lastIndexByte(p []byte, c byte) int {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == c {
			return i
		}
	}
	return -1
}

// runOne runs one hypothesis once and fills r with what it showed; the
// caller sends hyp_finished. em stamps the events of a rerun.
func runOne(ctx context.Context, cfg *Config, em *emitter, jd *judge, h Hypothesis, r *result, now func() time.Time) {
	start := now()
	r.Status = StatusRunning
	em.emit(Event{Kind: KindHypStarted, Hyp: h.Name})

	var logf *os.File
	var logErr error
	if cfg.LogDir != "" {
		if logErr = os.MkdirAll(filepath.Dir(r.Log), 0o700); logErr == nil {
			logf, logErr = os.Create(r.Log)
		}
	}
	if logf == nil {
		r.Log = ""
	}
	var parser TestParser
	if cfg.NewParser != nil {
		parser = cfg.NewParser(cfg.Command)
	}
	out := newHypOutput(h.Name, logf, cfg.MaxOutput, cfg.canary.wrapLive(parser), em)
	out.view = cfg.canary.view()

	hctx, cancel := ctx, context.CancelFunc(func() {})
	if cfg.Timeout > 0 {
		hctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
	}
	defer cancel()
	jobHyp, planted, plantedAll := cfg.canary.plant(h.WithCommon())
	job := Job{
		Workspace: cfg.Workspace, Subdir: cfg.Subdir, Hyp: jobHyp, Command: cfg.Command, Env: cfg.Env,
		Net: cfg.Net, Tmp: cfg.Tmp, Output: out,
	}
	if cfg.JUnit != "" {
		job.Collect = []string{path.Join(cfg.Subdir, cfg.JUnit)}
	}
	if cfg.Keep && cfg.LogDir != "" && em.attempt == 0 {
		job.KeepDir = filepath.Join(cfg.LogDir, h.Name, "upper")
	}
	o, err := cfg.Sandbox.Run(hctx, job)
	summary := out.close()

	r.DurationMS = now().Sub(start).Milliseconds()
	r.OutputBytes = out.bytes
	r.OutputTail = out.tail.String()
	if w := out.logWarning(r.Log, logErr); w != "" {
		o.Warnings = append(o.Warnings, w)
	}
	switch {
	case errors.Is(hctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		r.Status = StatusTimedOut
		msg := fmt.Sprintf("timed out after %s", cfg.Timeout)
		if c := contention(effectiveJobs(cfg)); c != "" {
			msg += " (" + c + ")"
		}
		r.Error = &msg
	case ctx.Err() != nil:
		r.Status = StatusCancelled
	case err != nil:
		r.Status = StatusError
		msg := err.Error()
		r.Error = &msg
	case o.ExitCode == 0:
		r.Status = StatusPassed
	default:
		r.Status = StatusFailed
	}
	if err == nil && r.Status != StatusCancelled && r.Status != StatusTimedOut {
		code := o.ExitCode
		r.ExitCode = &code
		if o.Signal != "" {
			msg := "killed by " + o.Signal
			r.Error = &msg
		}
	}
	r.Node, r.Mode = o.Node, o.Mode
	r.Seal = o.Seal
	if r.Mode == "" {
		r.Mode = string(cfg.Sandbox.Mode())
	}
	for _, w := range o.Warnings {
		msg := w
		if r.Error != nil {
			msg = *r.Error + "; " + w
		}
		r.Error = &msg
	}
	if cfg.ParseJUnit != nil && len(job.Collect) > 0 {
		if b, ok := o.Collected[job.Collect[0]]; ok {
			if s, jerr := cfg.ParseJUnit(b); jerr == nil && s != nil {
				summary = s
			}
		}
	}
	summary, r.canary = cfg.canary.strip(summary)
	if c := cfg.canary; r.canary != nil && (c.runner == "go" || c.runner == "cargo" && !c.nextest) {
		r.canary.perJob, r.canary.planted = true, planted
		r.canary.plantedAny = c.plantedIn(jobHyp)
		if c.runner == "go" {
			r.canary.goRun = true
			if !plantedAll {
				r.canary.unwatched = c.unwatchedWrites(o.Changed, planted)
			}
		}
	}
	r.Tests = toTests(summary)
	if summary != nil {
		r.Tests.Unit = summary.Unit
		r.passedTests = set(summary.PassedTests)
		r.failedTests = set(summary.FailedTests)
	}
	accountSuites(r, summary)
	// Exit 0 after failing tests (candidate code calling os._exit(0), a
	// wrapper that drops the status) is not a pass (docs/report.md).
	if r.Status == StatusPassed && r.Tests != nil && r.Tests.Failed > 0 {
		r.Status = StatusFailed
	}
	cfg.canary.settle(r, o)                                    // canary_observe.go: its failure alone is a pass
	setReason(r, &out.tail, cfg.Timeout, now())                // reason.go: why it did not pass, in one line
	addNetHint(r.Result, cfg.Net, Mode(r.Mode))                // nethint.go: a localhost port taken or refused
	addTmpHint(r.Result, cfg.Tmp, cfg.Workspace, Mode(r.Mode)) // tmphint.go: a file under the private /tmp
	// The user's view of the output never shows the canary: its test,
	// planted by shadow, is not one of theirs (the log keeps it all).
	r.OutputTail = r.canary.without(r.OutputTail)
	if err == nil {
		r.judgeChanged = jd.judgePaths(o.Changed, true)
	}
	// What it wrote outside the workspace, and whether that or its own
	// edits try to outlive the run (outside.go).
	applyOutside(r.Result, h, o, cfg.Env)
	r.PeakMemoryBytes, r.Limits = o.PeakMemoryBytes, o.Limits
	r.Runs, r.Passes = 1, 0
	if r.Status == StatusPassed {
		r.Passes = 1
	}
	r.attempts = []attempt{{passed: r.Status == StatusPassed, counted: r.Tests != nil, failed: r.failedTests}}
	var nre *NotRunError
	if errors.As(err, &nre) {
		markNotRun(r.Result, nre.Err)
	}
}

func set(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
