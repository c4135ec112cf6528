package sandbox

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestWaitIdle: the others wait for a baseline that builds (CPU grows),
// stop waiting for one that sleeps, and for one that runs past the cap;
// an ended baseline is waited for.
func TestWaitIdle(t *testing.T) {
	ms := time.Millisecond
	var clock time.Duration
	busy := func() time.Duration { clock += 100 * ms; return clock } // a core's worth per 100 ms tick
	ended := make(chan struct{})
	go func() { time.Sleep(300 * ms); close(ended) }()
	if why := waitIdle(ended, busy, 50*ms, 5*ms, time.Minute, 10*ms); why != "" {
		t.Errorf("a busy baseline that ended: %q", why)
	}
	idle := func() time.Duration { return time.Second }
	never := make(chan struct{})
	if why := waitIdle(never, idle, 50*ms, 5*ms, time.Minute, 10*ms); !strings.Contains(why, "idle") {
		t.Errorf("an idle baseline: %q", why)
	}
	clock = 0
	if why := waitIdle(never, busy, 50*ms, 5*ms, 200*ms, 10*ms); !strings.Contains(why, "still running") {
		t.Errorf("a baseline busy past the cap: %q", why)
	}
	unknown := func() time.Duration { return -1 }
	if why := waitIdle(never, unknown, 50*ms, 5*ms, 200*ms, 10*ms); !strings.Contains(why, "still running") {
		t.Errorf("CPU unknown: %q", why)
	}
}

// TestTreeCPUCountsReapedChildren: a child's CPU stays counted once it
// has exited and been reaped (the sum only grows), and a sleeping child
// adds nothing.
func TestTreeCPUCountsReapedChildren(t *testing.T) {
	before := treeCPU()
	if before < 0 {
		t.Skip("no /proc here")
	}
	if err := exec.Command("sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done").Run(); err != nil {
		t.Fatal(err)
	}
	after := treeCPU()
	if after-before < 100*time.Millisecond {
		t.Errorf("a busy child that exited added %s", after-before)
	}
	c := exec.Command("sleep", "1")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	mid := treeCPU()
	_ = c.Wait()
	if d := treeCPU() - mid; d > 50*time.Millisecond {
		t.Errorf("a sleeping child added %s", d)
	}
}
