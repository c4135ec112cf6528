package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"
)

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
