package tui

import (
	"bytes"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"
	"github.com/shadow-dev/shadow/engine"
)

// TestInteractiveFlow drives a real bubbletea program: events stream in,
// q asks before cancelling and n keeps the run, the run finishes, the
// winner shows, and q leaves with the report (exit code 0: a winner).
func TestInteractiveFlow(t *testing.T) {
	cancelled := false
	m := New(Options{Renderer: renderer(termenv.Ascii), Workspace: "/work/demo", Live: true,
		Cancel: func() { cancelled = true }, Tick: 10 * time.Millisecond})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	for _, ev := range liveEvents() {
		tm.Send(EventMsg(ev))
	}
	waitFor(t, tm, "plus-op", "2/4 done")
	tm.Type("q")
	waitFor(t, tm, "Cancel it and quit? [y/N]")
	tm.Type("n")
	for _, ev := range finishEvents() {
		tm.Send(EventMsg(ev))
	}
	rep := finishEvents()[2].Report
	tm.Send(RunDoneMsg{Report: rep})
	waitFor(t, tm, "★ winner plus-op")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	if cancelled {
		t.Errorf("n must not cancel the run")
	}
	if final.Report() == nil || final.Report().Winner == nil || *final.Report().Winner != "plus-op" {
		t.Errorf("final report %+v, want winner plus-op", final.Report())
	}
	var _ = engine.StatusPassed
}

func waitFor(t *testing.T, tm *teatest.TestModel, subs ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		for _, s := range subs {
			if !bytes.Contains(b, []byte(s)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}
