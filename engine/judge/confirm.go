package judge

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
)

// maxConfirmed is how many leading candidates --confirm tries in turn
// before it gives up naming a winner (docs/report.md).
const maxConfirmed = 3

// confirm reruns the leader of the ranked results cfg.Confirm more times,
// with the baseline's reruns beside the first leader's (in parallel where
// the sandbox allows, within -j). A leader that fails a rerun leaves the
// first tier (it ranks first among the failed) and the next is tried, at
// most maxConfirmed in all. A confirmed leader is marked so; results are
// ranked again after each round. It returns the sandbox's Exhausted error
// when that cut the reruns short: no leader is confirmed then.
func confirm(ctx context.Context, cfg *Config, jd *judge, results []*result) error {
	byName := map[string]Hypothesis{}
	for _, h := range cfg.Hyps {
		byName[h.Name] = h
		if jh, ok := cfg.jobHyps[h.Name]; ok {
			byName[h.Name] = jh // judged: the code part, as the first run
		}
	}
	base := baselineOf(results, cfg.Hyps)
	baseDone := base == nil
	jobs := max(cfg.Jobs, 1)
	for tried := 0; tried < maxConfirmed && ctx.Err() == nil; tried++ {
		lead := Leader(results)
		if lead == nil {
			return nil
		}
		targets := []*result{lead}
		if !baseDone && base != lead {
			targets = append(targets, base)
		}
		baseDone = true
		rerun(ctx, cfg, jd, byName, targets, jobs)
		if ctx.Err() != nil {
			return nil
		}
		if err := cfg.jobs.Exhausted(); err != nil {
			return err // fewer reruns than asked for confirm nothing
		}
		if lead.Passes == lead.Runs {
			lead.confirmed = true
		}
		rank(results, cfg.Hyps)
		if lead.confirmed {
			return nil
		}
	}
	return nil
}

// rerun runs each target cfg.Confirm more times, at most jobs at once, and
// merges each rerun into its result as it ends.
func rerun(ctx context.Context, cfg *Config, jd *judge, hyps map[string]Hypothesis, targets []*result, jobs int) {
	var mu sync.Mutex // guards the targets while reruns merge
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for n := 2; n <= cfg.Confirm+1; n++ {
		for _, r := range targets {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
			wg.Add(1)
			go func(r *result, n int) {
				defer wg.Done()
				defer func() { <-sem }()
				h := hyps[r.Name]
				ar := &result{Result: &Result{Name: r.Name}}
				if cfg.LogDir != "" {
					ar.Log = filepath.Join(cfg.LogDir, h.Name, fmt.Sprintf("output.%d.log", n))
				}
				cfg.jobs.Rerun(ctx, h, n, ar.Result, func(o Observation) { cfg.observe(jd, ar, o) })
				mu.Lock()
				// A rerun the sandbox could not finish (every remote
				// node failed) says nothing of the candidate.
				lost := ar.Status == StatusError && cfg.jobs.Exhausted() != nil
				merge(r, ar, r == targets[0], ctx.Err() != nil || lost)
				rc := r.snapshot()
				mu.Unlock()
				cfg.jobs.Emit(n, Event{Kind: KindHypFinished, Hyp: r.Name, Result: rc})
			}(r, n)
		}
	}
	wg.Wait()
}

// merge adds one rerun to a hypothesis's result. A rerun of the passing
// leader that does not pass makes the candidate failed, and the result
// then shows that run (its counts, output and log) so the report tells
// why; a cancelled rerun counts for nothing.
func merge(r, a *result, lead, cancelled bool) {
	if cancelled || a.Status == StatusCancelled {
		return
	}
	r.Runs++
	if a.Status == StatusPassed {
		r.Passes++
	}
	r.attempts = append(r.attempts, a.attempts...)
	r.judgeChanged = sortedUnique(append(r.judgeChanged, a.judgeChanged...))
	r.Flaky = flakyOf(r.attempts)
	if a.Status != StatusPassed && r.Status == StatusPassed && !r.confirmFailed && lead {
		r.confirmFailed = true
		r.Status = StatusFailed
		r.ExitCode, r.Tests, r.passedTests, r.failedTests = a.ExitCode, a.Tests, a.passedTests, a.failedTests
		r.OutputTail, r.OutputBytes, r.Error = a.OutputTail, a.OutputBytes, a.Error
		if a.Log != "" {
			r.Log = a.Log
		}
	}
}
