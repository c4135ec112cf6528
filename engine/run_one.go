package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/shadow-dev/shadow/engine/judge"
)

// runOne runs one hypothesis once and fills r with what it showed; the
// judge reads its verdict inputs from it through observe, before the
// core's hints and counts (the judge's status rules come first); the
// caller sends hyp_finished. em stamps the events of a rerun.
func runOne(ctx context.Context, cfg *Config, em *emitter, jr *judge.Run, h Hypothesis, r *Result, now func() time.Time, observe func(judge.Observation)) {
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
	prep := jr.Prepare(h, parser) // the canary planted (engine/judge/canary.go)
	out := newHypOutput(h.Name, logf, cfg.MaxOutput, prep.Parser, em)
	out.view = prep.View

	hctx, cancel := ctx, context.CancelFunc(func() {})
	if cfg.Timeout > 0 {
		hctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
	}
	defer cancel()
	job := Job{
		Workspace: cfg.Workspace, Subdir: cfg.Subdir, Hyp: prep.Hyp, Command: cfg.Command, Env: cfg.Env,
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
	// What the outcome means (engine/judge/observe.go): the counts
	// without the canary, the judge's status rules, why it did not pass.
	observe(judge.Observation{Prep: prep, Summary: summary, Ran: err == nil, ExitCode: o.ExitCode, Signal: o.Signal,
		Changed: o.Changed, LastOutput: out.tail.last, End: now(), Timeout: cfg.Timeout})
	addNetHint(r, cfg.Net, Mode(r.Mode))                // nethint.go: a localhost port taken or refused
	addTmpHint(r, cfg.Tmp, cfg.Workspace, Mode(r.Mode)) // tmphint.go: a file under the private /tmp
	// What it wrote outside the workspace, and whether that or its own
	// edits try to outlive the run (outside.go).
	applyOutside(r, h, o, cfg.Env)
	r.PeakMemoryBytes, r.Limits = o.PeakMemoryBytes, o.Limits
	r.Runs, r.Passes = 1, 0
	if r.Status == StatusPassed {
		r.Passes = 1
	}
	var nre *NotRunError
	if errors.As(err, &nre) {
		markNotRun(r, nre.Err)
	}
}
