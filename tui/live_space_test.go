package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/muesli/termenv"

	"github.com/shadow-dev/shadow/engine"
)

// twelveEvents: 12 hypotheses, two running (-j 2), two finished (one
// with fixed and broken filled as the engine fills a hyp_finished that
// comes after the baseline's), eight queued.
func twelveEvents() []engine.Event {
	rs := engine.Event{Kind: engine.KindRunStarted, Run: "r12", Time: t0, Mode: "overlay", Command: []string{"./run.sh"}, Workspace: "/w", Jobs: 2}
	for i := range 12 {
		rs.Hypotheses = append(rs.Hypotheses, fmt.Sprintf("h%02d", i))
	}
	rs.Hypotheses[0] = "baseline"
	out := []engine.Event{rs}
	for i, n := range rs.Hypotheses[:4] {
		out = append(out, engine.Event{Kind: engine.KindHypStarted, Hyp: n, Time: t0.Add(time.Duration(i) * time.Second)})
	}
	out = append(out,
		engine.Event{Kind: engine.KindHypFinished, Hyp: "baseline", Result: &engine.Result{Name: "baseline", Status: engine.StatusFailed, ExitCode: ip(1), DurationMS: 900,
			Tests: &engine.Tests{Passed: 6, Failed: 1}, Fixed: []string{}, Broken: []string{}}},
		engine.Event{Kind: engine.KindHypFinished, Hyp: "h01", Result: &engine.Result{Name: "h01", Status: engine.StatusPassed, ExitCode: ip(0), DurationMS: 1000, ChangedLines: 1,
			Tests: &engine.Tests{Passed: 7}, Fixed: []string{"test_7"}, Broken: []string{}, Diff: "--- a/v.txt\n+++ b/v.txt\n@@ -1 +1 @@\n-bad\n+good\n"}},
	)
	return out
}

// At 200x50 during a run, queued hypotheses share one list column instead
// of a box each, the leaderboard shows every row the diff pane does not
// need, and a finished row's fixed/broken show before the run ends.
func TestLiveScreenUsesTheSpace(t *testing.T) {
	m := newTestModel(t, termenv.Ascii, 200, 50, twelveEvents())
	frame := m.View()
	checkFits(t, frame, 200, 50)
	if n := strings.Count(frame, "queued\n") + strings.Count(frame, "· queued "); n > 0 {
		t.Errorf("%d queued boxes: the queued ones should share one list column\n%s", n, frame)
	}
	if !strings.Contains(frame, "8 queued") {
		t.Errorf("no list column of the 8 queued hypotheses:\n%s", frame)
	}
	for _, n := range []string{"h04", "h11"} {
		if !strings.Contains(frame, n) {
			t.Errorf("%s is on no row or column:\n%s", n, frame)
		}
	}
	if strings.Contains(frame, "below:") {
		t.Errorf("the leaderboard is cut while the screen has room:\n%s", frame)
	}
	// The h01 row: +1 fixed, 0 broken, while the run goes on.
	var row string
	for _, l := range strings.Split(frame, "\n") {
		if strings.Contains(l, " h01 ") && strings.Contains(l, "passed") {
			row = l
		}
	}
	if !strings.Contains(row, "+1") || strings.Count(row, "–") > 0 {
		t.Errorf("h01's live row lacks fixed/broken: %q\n%s", row, frame)
	}
	// Few rows blank at the bottom of the body: the diff pane keeps what
	// it needs (a running hypothesis has no diff yet).
	lines := strings.Split(frame, "\n")
	blank := 0
	for i := len(lines) - 3; i >= 0 && strings.TrimSpace(lines[i]) == ""; i-- {
		blank++
	}
	if blank > 3 {
		t.Errorf("%d blank rows above the help:\n%s", blank, frame)
	}
	golden(t, "live_twelve_200x50", frame)
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		m := newTestModel(t, termenv.Ascii, sz[0], sz[1], twelveEvents())
		f := m.View()
		checkFits(t, f, sz[0], sz[1])
		golden(t, fmt.Sprintf("live_twelve_%dx%d", sz[0], sz[1]), f)
	}
}

// Selecting a queued hypothesis (→ past the columns) marks it in the list.
func TestQueuedListSelection(t *testing.T) {
	m := newTestModel(t, termenv.Ascii, 200, 50, twelveEvents())
	for range 5 {
		m.Update(press("right"))
	}
	m.Update(tickMsg(t0))
	if s := m.selected(); s == nil || s.status != engine.StatusQueued {
		t.Fatalf("selected %+v, want a queued one", s)
	}
	checkFits(t, m.View(), 200, 50)
}

// esc closes the ? overlay (it used to stay until ? again).
func TestEscClosesHelp(t *testing.T) {
	m := newTestModel(t, termenv.Ascii, 120, 40, liveEvents())
	m.Update(press("?"))
	if !m.help.ShowAll {
		t.Fatal("? did not open the help")
	}
	m.Update(press("esc"))
	if m.help.ShowAll {
		t.Error("esc left the help open")
	}
	// esc with the help closed still goes back (the output view).
	m.Update(press("enter"))
	if m.out.open {
		m.Update(press("esc"))
		if m.out.open {
			t.Error("esc did not close the output")
		}
	}
}
