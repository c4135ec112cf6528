package engine

import (
	"context"
	"sync"

	"github.com/shadow-dev/shadow/engine/judge"
)

// schedule starts every hypothesis's job, at most rs.jobs at once and
// rs.cfg.First alone first when set, and returns when every job (and
// every extra job of the cross phase) has ended. A hypothesis not started
// (the run cancelled, or every remote node lost) is reported finished as
// it stands.
func (rs *runState) schedule(ctx context.Context) {
	cfg, em, jr, now := rs.cfg, rs.em, rs.jr, rs.now

	sem := make(chan struct{}, rs.jobs)
	var wg sync.WaitGroup
	order, first := runOrder(cfg.Hyps, cfg.First)
	for _, i := range order {
		name := cfg.Hyps[i].Name
		entry := jr.Entry(name) // the report entry; the judge's record of it is its own
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			entry.Status = StatusCancelled
			rc := snapshot(entry)
			em.emit(Event{Kind: KindHypFinished, Hyp: rc.Name, Result: rc})
			continue
		}
		if err := exhausted(cfg.Sandbox); err != nil {
			<-sem
			markNotRun(entry, err)
			rc := snapshot(entry)
			em.emit(Event{Kind: KindHypFinished, Hyp: rc.Name, Result: rc})
			continue
		}
		wg.Add(1)
		ended := make(chan struct{})
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			runOne(ctx, cfg, em, jr, jr.JobHyp(name), entry, now, func(o judge.Observation) { jr.Observed(name, o) })
			rc := snapshot(entry)
			jr.Provisional(name, rc) // live fixed/broken (engine/judge/provisional.go)
			em.emit(Event{Kind: KindHypFinished, Hyp: rc.Name, Result: rc})
			close(ended)
			jr.AfterJudged(ctx, name, sem)
		}()
		if i == first && waitFirst(cfg.FirstWait, ended) && cfg.AfterFirst != nil {
			cfg.AfterFirst(snapshot(entry))
		}
	}
	jr.StartCross(ctx, sem)
	wg.Wait()
	jr.Wait()
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

// snapshot is a copy of a report entry, as an event carries it.
func snapshot(r *Result) *Result {
	c := *r
	return &c
}
