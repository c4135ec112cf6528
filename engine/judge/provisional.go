package judge

import "sync"

// provisional gives a hyp_finished event's result its fixed and broken
// tests against the baseline as soon as both have finished, so a live view
// (the TUI's leaderboard, a program reading --events) need not show them
// unknown until the run ends. The report's, computed by rank at the end,
// is the verdict: --confirm reruns and flaky tests can still change them
// (docs/events.md).
type provisional struct {
	mu   sync.Mutex
	base *result
	done map[*result]bool
}

func newProvisional(results []*result, hyps []Hypothesis) *provisional {
	return &provisional{base: baselineOf(results, hyps), done: map[*result]bool{}}
}

// finished marks r done (its runOne has returned: nothing writes its
// counts or per-test outcomes until the run's end) and fills rc, the copy
// its hyp_finished event carries, when the baseline is done too.
func (p *provisional) finished(r *result, rc *Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done[r] = true
	if p.base == nil || !p.done[p.base] || rc.Status == StatusCancelled {
		return
	}
	rc.Fixed, rc.Broken = fixedBroken(p.base, r, nil)
}
