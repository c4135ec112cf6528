package judge

import (
	"context"
	"path/filepath"
	"time"
)

// Run is the judge of one run: what it knows of each hypothesis (its
// record, keyed by name, beside the report entry the core fills), the
// judged splits and the cross phase. The core calls it at each stage of
// engine.Run; nothing of it is part of the report but what it writes
// into the entries.
type Run struct {
	cfg     *Config
	now     func() time.Time
	jd      *judge
	orig    map[string]FileState
	results []*result
	byName  map[string]*result
	splits  map[string]judgeSplit
	cp      *crossPhase // the cross phase; nil when it is off
	prov    *provisional
}

// Setup sets the judge up before any candidate runs: which files are
// tests (from the runner, on the checkout: collect.go), the tamper canary
// (canary.go), each hypothesis's entry with its judged split (judged.go),
// what its sandbox gets, what the scan flags (scan.go) and the cross
// phase (cross.go). orig is the checkout as the run found it; rep gets
// the test collection.
func Setup(ctx context.Context, c Config, jobs Jobs, orig map[string]FileState, rep *Report) *Run {
	cfg := &c
	cfg.jobs = jobs
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	jd := newJudge(cfg.TestPaths, append(commonPaths(cfg.Hyps), cfg.TestsFrom.Paths()...))
	// Which files are tests, from the runner, on the checkout before any
	// candidate runs (collect.go).
	jd.collected = collectTests(ctx, cfg)
	rep.TestCollection = jd.collected.report()
	cfg.canary = canaryFor(cfg.Workspace, cfg.Subdir, cfg.Command, jd.collected) // canary_collected.go
	results := make([]*result, len(cfg.Hyps))
	byName := map[string]*result{}
	splits := map[string]judgeSplit{}
	cfg.jobHyps = map[string]Hypothesis{}
	for i, h := range cfg.Hyps {
		results[i] = newResult(h, orig, filepath.Join(cfg.LogDir, h.Name, "output.log"))
		byName[h.Name] = results[i]
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
		results[i].scanHits = scanHits(jd, h, orig)
		AddSuspicious(results[i].Result, scanReason(results[i].scanHits))
		AddSuspicious(results[i].Result, gitRiskReason(cfg.Workspace, h, orig))
	}
	jr := &Run{cfg: cfg, now: now, jd: jd, orig: orig, results: results, byName: byName, splits: splits}
	jr.cp = newRunCrossPhase(cfg, jd, splits, orig)
	jr.prov = newProvisional(results, cfg.Hyps) // provisional.go: live fixed/broken
	return jr
}

// Entry is the named hypothesis's report entry, which the core fills as
// it runs it.
func (jr *Run) Entry(name string) *Result { return jr.byName[name].Result }

// JobHyp is what the named hypothesis's sandbox gets: its code part under
// the checkout's judge, or all of it with --allow-test-edits.
func (jr *Run) JobHyp(name string) Hypothesis { return jr.cfg.jobHyps[name] }

// Prepare is Config.Prepare for this run.
func (jr *Run) Prepare(h Hypothesis, parser TestParser) Prepared { return jr.cfg.Prepare(h, parser) }

// Observed reads the verdict inputs of the named hypothesis's first run.
func (jr *Run) Observed(name string, obs Observation) { jr.cfg.observe(jr.jd, jr.byName[name], obs) }

// Provisional gives rc, the copy of the named entry its hyp_finished
// carries, its fixed and broken tests against the baseline as soon as
// both have finished (provisional.go).
func (jr *Run) Provisional(name string, rc *Result) { jr.prov.finished(jr.byName[name], rc) }

// AfterJudged starts the cross jobs of the named hypothesis once its
// judged run ended, each waiting for one of the run's slots (cross.go).
func (jr *Run) AfterJudged(ctx context.Context, name string, slots chan struct{}) {
	if jr.cp != nil {
		jr.cp.afterJudged(ctx, jr.byName[name], slots, jr.now)
	}
}

// StartCross starts the checkout target's cross jobs, once every
// hypothesis's job has been started.
func (jr *Run) StartCross(ctx context.Context, slots chan struct{}) {
	if jr.cp != nil {
		jr.cp.startBaseline(ctx, slots, jr.now)
	}
}

// Wait returns when every cross job has ended.
func (jr *Run) Wait() {
	if jr.cp != nil {
		jr.cp.wait()
	}
}

// JudgePaths are the judge paths the named hypothesis writes or deletes
// (its judge part: what --apply leaves out without --with-tests).
func (jr *Run) JudgePaths(name string) []string { return jr.splits[name].paths }
