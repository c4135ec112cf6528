package reaper

import (
	"os/exec"
	"testing"
	"time"
)

// Outlive ends a recorded helper's tree itself when the helper does not
// finish within the wait (here a stand-in that ignores SIGTERM and never
// exits): every descendant, then the helper.
func TestOutliveEndsAStuckHelpersTree(t *testing.T) {
	stuck := exec.Command("sh", "-c", `trap "" TERM; sleep 1000 & sleep 1000 & wait; wait`)
	if err := stuck.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	go func() { _ = stuck.Wait(); close(waited) }()
	id, ok := Identify(stuck.Process.Pid)
	if !ok {
		t.Fatal("cannot identify the stand-in")
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(descendants(id.PID)) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	kids := descendants(id.PID)
	if len(kids) < 2 {
		t.Fatalf("the stand-in's children did not start: %v", kids)
	}
	start := time.Now()
	Outlive(id, 200*time.Millisecond)
	if id.Alive() {
		t.Fatal("the stuck helper is still alive")
	}
	for _, k := range kids {
		if p, ok := Identify(k); ok && p.Alive() {
			t.Errorf("its descendant %d is still alive", k)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Outlive took %v", d)
	}
	<-waited
}

// A helper that is gone already (or a record of another process that
// reused its pid) costs no wait.
func TestOutliveOfAGoneHelperReturnsAtOnce(t *testing.T) {
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	Outlive(ProcID{PID: c.Process.Pid, Start: 1}, 10*time.Second)
	if d := time.Since(start); d > time.Second {
		t.Errorf("Outlive of a gone helper took %v", d)
	}
}
