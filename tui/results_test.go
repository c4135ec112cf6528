package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/shadow-dev/shadow/engine"
)

// TestResultsShowWholeSmallFixAt80x24: after a run of six hypotheses at
// 80x24, every line of the winner's two-hunk diff is on screen without a
// key press, and the leaderboard still says how many it leaves out.
func TestResultsShowWholeSmallFixAt80x24(t *testing.T) {
	m := sixDone(t, termenv.Ascii, 80, 24)
	frame := m.View()
	checkFits(t, frame, 80, 24)
	rows := strings.Split(frame, "\n")
	for _, l := range strings.Split(strings.TrimSuffix(twoHunkFix, "\n"), "\n") {
		found := false
		for _, r := range rows {
			if strings.TrimRight(r, " ") == strings.TrimRight(l, " ") {
				found = true
			}
		}
		if !found {
			t.Errorf("diff line %q is not on the 80x24 screen:\n%s", l, frame)
		}
	}
	if !strings.Contains(frame, "below:") || !strings.Contains(frame, "★ winner fix_all") {
		t.Errorf("the leaderboard must name the winner and say what it leaves out:\n%s", frame)
	}
	if strings.Contains(frame, "more lines") {
		t.Errorf("nothing is cut, yet a ▼ marker shows:\n%s", frame)
	}
	golden(t, "results_six_80x24", frame)
}

// TestResultsSweep: the finished six-hypothesis screen at every size,
// pinned; whatever the diff pane cannot show is said.
func TestResultsSweep(t *testing.T) {
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			m := sixDone(t, termenv.Ascii, w, h)
			m.Update(press("right")) // edit_tests: disqualified
			frame := m.View()
			checkFits(t, frame, w, h)
			if !strings.Contains(frame, "disq") && w >= 80 {
				t.Errorf("the disqualified mark is missing:\n%s", frame)
			}
			golden(t, fmt.Sprintf("results_six_%dx%d_edit_tests", w, h), frame)
		})
	}
}

// TestDiffCutSaysSoAndScrollsInPlace: a diff longer than its pane ends
// in a "▼ N more lines" row; ↓ scrolls it where it is, G reaches its end
// (the marker then points up), g its top.
func TestDiffCutSaysSoAndScrollsInPlace(t *testing.T) {
	m := sixDone(t, termenv.Ascii, 60, 14)
	before := m.View()
	if !strings.Contains(before, "▼ ") || !strings.Contains(before, "more lines") {
		t.Fatalf("a cut diff must say so:\n%s", before)
	}
	below := m.diff.p.below()
	m.Update(press("down"))
	if m.diff.p.below() != below-1 || m.focus != paneColumns {
		t.Errorf("↓ in the results scrolls the diff in place: below %d→%d", below, m.diff.p.below())
	}
	m.Update(press("G"))
	if v := m.View(); m.diff.p.below() != 0 || !strings.Contains(v, "▲ ") || !strings.Contains(v, "return div(a, b)") {
		t.Errorf("G shows the diff's end:\n%s", v)
	}
	m.Update(press("g"))
	if m.diff.p.off != 0 {
		t.Errorf("g goes back to the top, offset %d", m.diff.p.off)
	}
	m.Update(press("end"))
	m.Update(press("home"))
	if m.diff.p.off != 0 {
		t.Errorf("home goes back to the top, offset %d", m.diff.p.off)
	}
}

// TestArrowsFollowThePanesOrder: ←/→ move in the order the pane draws
// the hypotheses: a live run's columns left to right (running first, then
// queued, then finished: swap, rewrite, baseline, plus-op), the results
// and the leaderboard top to bottom (rank order).
func TestArrowsFollowThePanesOrder(t *testing.T) {
	m := newTestModel(t, termenv.Ascii, 100, 30, liveEvents())
	if got := m.selected().name; got != "swap" {
		t.Errorf("the first live column selected: %s, want swap (running)", got)
	}
	m.Update(press("right"))
	if got := m.selected().name; got != "rewrite" {
		t.Errorf("→ in the live columns: %s, want rewrite (the next running column)", got)
	}
	m.Update(press("right"))
	if got := m.selected().name; got != "baseline" {
		t.Errorf("→ again: %s, want baseline (finished, stepped aside)", got)
	}
	m.Update(press("tab")) // leaderboard, rank order: plus-op, baseline, swap, rewrite
	m.Update(press("left"))
	if got := m.selected().name; got != "plus-op" {
		t.Errorf("← in the leaderboard: %s, want plus-op (the row above baseline)", got)
	}
	d := sixDone(t, termenv.Ascii, 100, 30)
	for i, want := range []string{"edit_tests", "flaky", "fix_add"} {
		d.Update(press("right"))
		if got := d.selected().name; got != want {
			t.Errorf("→ %d in the results: %s, want %s (rank order)", i+1, got, want)
		}
	}
}

// TestMultiRuneKeysAreEachHandled: keys that arrive in one read come as
// one message of several runes; every one of them counts.
func TestMultiRuneKeysAreEachHandled(t *testing.T) {
	m := sixDone(t, termenv.Ascii, 100, 30)
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("ll")})
	if got := m.selected().name; got != "flaky" {
		t.Errorf(`"ll" in one message moved to %s, want flaky (two steps)`, got)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("hhh")})
	if got := m.selected().name; got != "fix_all" {
		t.Errorf(`"hhh" moved to %s, want fix_all`, got)
	}
	// A paste is text, not keys.
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("ll"), Paste: true})
	if got := m.selected().name; got != "fix_all" {
		t.Errorf("a paste moved the selection to %s", got)
	}
	// jj scrolls twice.
	s := sixDone(t, termenv.Ascii, 60, 14)
	s.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")})
	if s.diff.p.off != 2 {
		t.Errorf(`"jj" scrolled %d lines, want 2`, s.diff.p.off)
	}
}

// TestSelectionFollowsTheHypothesis: ranks change as results come in;
// the selection stays on the hypothesis picked, not on its rank.
func TestSelectionFollowsTheHypothesis(t *testing.T) {
	m := newTestModel(t, termenv.Ascii, 100, 30, liveEvents())
	m.Update(press("tab"))
	m.selectName("plus-op")
	m.Update(press("down")) // rank 2 now: baseline
	if m.selected().name != "baseline" {
		t.Fatalf("selected %s", m.selected().name)
	}
	for _, ev := range finishEvents() { // baseline falls to rank 4
		m.Update(EventMsg(ev))
	}
	if m.selected().name != "baseline" {
		t.Errorf("the selection moved with the rank to %s", m.selected().name)
	}
}

// TestQuitPromptClosesWhenTheRunEnds: "the run is still going" is
// wrong once it is not.
func TestQuitPromptClosesWhenTheRunEnds(t *testing.T) {
	m := newTestModel(t, termenv.Ascii, 100, 30, liveEvents())
	m.Update(press("q"))
	if !strings.Contains(m.View(), "still going") {
		t.Fatalf("no question")
	}
	for _, ev := range finishEvents() {
		m.Update(EventMsg(ev))
	}
	m.Update(RunDoneMsg{Report: finishEvents()[2].Report})
	if m.ask.kind != confirmNone || strings.Contains(m.View(), "still going") {
		t.Errorf("the quit prompt outlived the run:\n%s", m.View())
	}
	if _, cmd := m.Update(press("q")); !isQuit(cmd) {
		t.Errorf("q after the run quits")
	}
}

// TestDiffHeaderReadsTheColumnsState: the diff pane's rule says what the
// column says (time, counts), not what it said when first drawn.
func TestDiffHeaderReadsTheColumnsState(t *testing.T) {
	m := newTestModel(t, termenv.Ascii, 140, 40, liveEvents()) // swap first: running, 0 passed 1 failed
	m.Update(tickMsg(t0))
	v := m.View()
	var rule string
	for _, l := range strings.Split(v, "\n") {
		if strings.HasPrefix(l, "── swap · ") {
			rule = l
		}
	}
	for _, want := range []string{"running 1.9s", "0 passed 1 failed"} {
		if !strings.Contains(rule, want) || !strings.Contains(v, "│ "+want) && !strings.Contains(v, "┃ ") {
			t.Errorf("the diff rule %q lacks %q, which the column shows:\n%s", rule, want, v)
		}
	}
	if strings.Contains(rule, "no counts yet") {
		t.Errorf("a stale 'no counts yet': %s", rule)
	}
}

// TestEscReturnsToTheLiveRun: from a run picked in the timeline, esc
// goes back to the live one.
func TestEscReturnsToTheLiveRun(t *testing.T) {
	m := newTestModel(t, termenv.Ascii, 100, 30, liveEvents())
	old := newRunView("20260101-000000-old000")
	for _, ev := range finishEvents() {
		e := ev
		e.Run = old.id
		old.apply(e)
	}
	m.show(old)
	m.Update(press("esc"))
	if m.shown != m.live {
		t.Errorf("esc did not return to the live run")
	}
}

// TestNoAmbiguousGlyphs: no ⏱ (an emoji, two cells in some terminals);
// the ASCII set draws 7-bit bytes only.
func TestNoAmbiguousGlyphs(t *testing.T) {
	m := newTestModel(t, termenv.Ascii, 100, 30, liveEvents(), finishEvents())
	if strings.Contains(m.View(), "⏱") {
		t.Errorf("⏱ on screen")
	}
	a := New(Options{Renderer: renderer(termenv.Ascii), Live: true, ASCII: true, Now: m.now})
	a.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	for _, ev := range append(liveEvents(), finishEvents()...) {
		a.Update(EventMsg(ev))
	}
	for p := range paneCount {
		a.focus = p
		a.Update(tickMsg(t0))
		for i, r := range a.View() {
			if r > 0x7e {
				t.Fatalf("pane %d: non-ASCII %q at %d:\n%s", p, r, i, a.View())
			}
		}
	}
}

// TestMonoAndScreenTerminalsGetAttributes: TERM=screen (8 colours) and
// a monochrome terminal still show the selection in reverse video;
// NO_COLOR still means no escape sequences at all.
func TestMonoAndScreenTerminalsGetAttributes(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		name      string
		env       func(string) string
		mono, esc bool
	}{
		{"screen", env("TERM", "screen"), false, true},
		{"vt220", env("TERM", "vt220"), true, true},
		{"NO_COLOR", env("TERM", "screen", "NO_COLOR", "1"), false, false},
		{"dumb", env("TERM", "dumb"), false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := renderer(termenv.Ascii)
			mono := upgradeProfile(r, c.env, true)
			if mono != c.mono {
				t.Errorf("mono = %v, want %v", mono, c.mono)
			}
			m := New(Options{Renderer: r, Mono: mono, Live: true, Now: func() time.Time { return t0 }})
			m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
			for _, ev := range append(liveEvents(), finishEvents()...) {
				m.Update(EventMsg(ev))
			}
			m.Update(press("tab"))
			v := m.View()
			if got := strings.Contains(v, "\x1b[7m") || strings.Contains(v, ";7m"); got != c.esc {
				t.Errorf("reverse video for the selection: %v, want %v", got, c.esc)
			}
			if !c.esc && strings.Contains(v, "\x1b") {
				t.Errorf("escape sequences where none may be")
			}
			if mono && strings.Contains(v, "\x1b[3") {
				t.Errorf("a colour on a monochrome terminal: %q", v)
			}
		})
	}
}

// TestColumnsShowTheFailureNotItsPrefix: a narrow column shows the test
// id and the exception, paths cut, wrapped — not "FAILED tests/test_…".
func TestColumnsShowTheFailureNotItsPrefix(t *testing.T) {
	st := NewStyles(renderer(termenv.Ascii))
	rv := newRunView("")
	for _, ev := range sixEvents() {
		rv.apply(ev)
	}
	cols := renderColumns(st, rv, 0, 0, 90, 16, t0, 0)
	plain := ansi.Strip(cols)
	for _, want := range []string{"test_calc.py::test_add -", "ZeroDivisionError:", "division by zero"} {
		if !strings.Contains(plain, want) {
			t.Errorf("columns lack %q:\n%s", want, plain)
		}
	}
	if strings.Contains(plain, "tests/unit/") || strings.Contains(plain, "FAILED tests") {
		t.Errorf("paths not shortened:\n%s", plain)
	}
	golden(t, "component_columns_failures", cols)
}

func TestKeyLines(t *testing.T) {
	in := []string{
		"=== RUN   TestAdd",
		"    calc_test.go:9: Add(2, 3) = -1, want 5",
		"--- FAIL: TestAdd (0.00s)",
		"FAILED /home/u/src/tests/test_calc.py::test_div - ZeroDivisionError: division by zero",
		"E       AssertionError: boom",
		"  ● Calc › adds",
		"thread 'main' panicked at src/lib.rs:3:5:",
		"ok      example.com/calc",
		"noise",
		"--- FAIL: TestAdd (0.00s)",
	}
	got := keyLines(in, 10)
	want := []string{
		"calc_test.go:9: Add(2, 3) = -1, want 5",
		"--- FAIL: TestAdd (0.00s)",
		"test_calc.py::test_div - ZeroDivisionError: division by zero",
		"E AssertionError: boom",
		"● Calc › adds",
		"thread 'main' panicked at lib.rs:3:5:",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("keyLines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := keyLines(in, 2); len(got) != 2 || got[1] != want[5] {
		t.Errorf("the newest are kept: %q", got)
	}
}

// TestRemainingKeys: shift+tab, o, m and ? do what the help says.
func TestRemainingKeys(t *testing.T) {
	m := sixDone(t, termenv.Ascii, 100, 30)
	m.Update(press("tab"))
	m.Update(tea.KeyMsg{Type: tea.KeyShiftTab})
	if m.focus != paneColumns {
		t.Errorf("shift+tab goes back a pane: %d", m.focus)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyShiftTab})
	if m.focus != paneTimeline {
		t.Errorf("shift+tab wraps to the timeline: %d", m.focus)
	}
	m.Update(press("tab"))
	_, cmd := m.Update(press("o"))
	if !m.out.open || cmd == nil {
		t.Errorf("o opens the output (reading the log in a command)")
	}
	m.Update(press("q"))
	if m.out.open {
		t.Errorf("q closes the output first")
	}
	_, cmd = m.Update(press("m"))
	if !m.mouse || cmd == nil || fmt.Sprintf("%T", cmd()) != "tea.enableMouseCellMotionMsg" {
		t.Errorf("m captures the mouse")
	}
	_, cmd = m.Update(press("m"))
	if m.mouse || cmd == nil || fmt.Sprintf("%T", cmd()) != "tea.disableMouseMsg" {
		t.Errorf("m again gives it back")
	}
	m.Update(press("?"))
	if v := m.View(); !m.help.ShowAll || !strings.Contains(v, "next match") {
		t.Errorf("? shows every key:\n%s", v)
	}
	checkFits(t, m.View(), 100, 30)
}

// TestWatchSaysAnotherRunIsGoing: watch switched to a newer run while
// an older one still goes: the header says so.
func TestWatchSaysAnotherRunIsGoing(t *testing.T) {
	m := New(Options{Renderer: renderer(termenv.Ascii), Watch: true, Workspace: "/work/demo", Now: func() time.Time { return t0 }})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 30})
	old, cur := newRunView("20260314-150000-old000"), newRunView("20260314-150926-abc123")
	for _, ev := range liveEvents() {
		e := ev
		e.Run = old.id
		old.apply(e)
		cur.apply(ev)
	}
	m.followed[old.id], m.followed[cur.id] = old, cur
	m.live = cur
	m.show(cur)
	m.Update(tickMsg(t0))
	if v := m.View(); !strings.Contains(strings.SplitN(v, "\n", 2)[0], "run 20260314-150000-old000 still going") {
		t.Errorf("the header does not say the older run still goes:\n%s", v)
	}
	for _, ev := range finishEvents() {
		e := ev
		e.Run = old.id
		old.apply(e)
	}
	m.pending = true // as when a followed event arrives
	m.Update(tickMsg(t0))
	if v := m.View(); strings.Contains(v, "still going") {
		t.Errorf("the older run has ended:\n%s", v)
	}
}

// TestVerdictMarks: the leaderboard's notes for each verdict.
func TestVerdictMarks(t *testing.T) {
	st := NewStyles(renderer(termenv.Ascii))
	lost := 2
	for _, c := range []struct {
		r    *engine.Result
		want string
	}{
		{nil, ""},
		{&engine.Result{}, ""},
		{&engine.Result{Disqualified: sp("edits the tests"), EditsTests: []string{"t.py"}}, "disq"},
		{&engine.Result{EditsTests: []string{"t.py"}}, "test edit"},
		{&engine.Result{LostTests: &lost}, "lost tests"},
		{&engine.Result{Flaky: []string{"t::a"}, Runs: 2, Passes: 1}, "flaky"},
		{&engine.Result{Disqualified: sp("lost 2 tests"), LostTests: &lost, Flaky: []string{"t::a"}}, "disq flaky"},
	} {
		if got := marks(st, &hypState{result: c.r}); got != c.want {
			t.Errorf("marks(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}
