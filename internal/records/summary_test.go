package records

import (
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// A run that every remote node failing stopped says so in `shadow log`:
// its state word and the report's reason, not a plain "done".
func TestSummaryOfAStoppedRun(t *testing.T) {
	why := "every remote node failed: node n1: connection lost"
	ri := &snap.RunInfo{ID: "r1", State: snap.StateFinished, Hyps: []string{"a"},
		Report: &engine.Report{Mode: "overlay", Error: why}}
	s := Summarize(ri)
	if s.Error != why {
		t.Errorf("Error = %q, want the report's %q", s.Error, why)
	}
	if got := s.StateWord(); got != "stopped" {
		t.Errorf("StateWord = %q, want stopped", got)
	}
	ri.Report.Error = ""
	if got := Summarize(ri).StateWord(); got != "done" {
		t.Errorf("StateWord of a finished run = %q, want done", got)
	}
}

// TestRunWordIsTheOneStateWord: every front end's run-state word (shadow
// log, shadow_log, the TUI's timeline) comes from RunWord.
func TestRunWordIsTheOneStateWord(t *testing.T) {
	for _, c := range []struct {
		state              string
		cancelled, stopped bool
		want               string
	}{
		{snap.StateFinished, false, false, WordDone},
		{snap.StateFinished, true, false, WordCancelled},
		{snap.StateFinished, false, true, WordStopped},
		{snap.StateFinished, true, true, WordStopped},
		{snap.StateRunning, false, false, WordRunning},
		{snap.StateInterrupted, false, false, WordInterrupted},
	} {
		if got := RunWord(c.state, c.cancelled, c.stopped); got != c.want {
			t.Errorf("RunWord(%s, cancelled %v, stopped %v) = %q, want %q", c.state, c.cancelled, c.stopped, got, c.want)
		}
	}
}
