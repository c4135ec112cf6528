package sandbox

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// How long the other hypotheses wait for the baseline that runs alone
// first (docs/modes.md "Baseline first"). Waiting pays while the baseline
// builds; a baseline that hangs on the unfixed code (a sleep, a deadlock,
// a test waiting on a socket) would hold every candidate until its
// timeout. So they start beside it once its processes have been idle for
// firstIdle (under firstIdleCPU of CPU time in that window: a build uses
// far more), or once it has run firstMax (a busy loop, or a build so long
// that N cold ones in parallel cost little more than waiting).
const (
	firstIdle    = 10 * time.Second
	firstIdleCPU = 500 * time.Millisecond
	firstMax     = 3 * time.Minute
	firstTick    = time.Second
)

// waitFirst is the engine's FirstWait for the home layer's baseline.
func (h *homeRun) waitFirst(ended <-chan struct{}) bool {
	why := waitIdle(ended, treeCPU, firstIdle, firstIdleCPU, firstMax, firstTick)
	if why == "" {
		return true
	}
	h.mu.Lock()
	h.info.Note = strings.TrimPrefix(h.info.Note+"; ", "; ") + "the others started beside the baseline: " + why
	h.mu.Unlock()
	return false
}

// waitIdle waits for ended, sampling cpu (the CPU time of the processes
// the baseline runs; negative where it cannot be read) every tick; it
// returns "" when ended closed, or why it stopped waiting.
func waitIdle(ended <-chan struct{}, cpu func() time.Duration, idle, idleCPU, max, tick time.Duration) string {
	start := time.Now()
	type sample struct {
		at  time.Time
		cpu time.Duration
	}
	var window []sample
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ended:
			return ""
		case now := <-t.C:
			if now.Sub(start) >= max {
				return fmt.Sprintf("it was still running after %s", max)
			}
			c := cpu()
			if c < 0 {
				continue
			}
			window = append(window, sample{now, c})
			for len(window) > 1 && now.Sub(window[1].at) >= idle {
				window = window[1:]
			}
			if first := window[0]; now.Sub(first.at) >= idle && c-first.cpu < idleCPU {
				return fmt.Sprintf("it used %s of CPU in %s (idle: waiting on something, not building)", (c - first.cpu).Round(time.Millisecond), now.Sub(first.at).Round(time.Second))
			}
		}
	}
}

// self is shadow's own pid, whose descendants treeCPU counts.
var self = os.Getpid()
