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

// mixedEvents is a run of n hypotheses mid-way: the first n-3 finished
// (failed, every fourth passed... none when noWinner), the last three
// running; spec order puts the running ones last, which the old columns
// never showed at 80 or 120 columns.
func mixedEvents(n int, noWinner bool) []engine.Event {
	rs := engine.Event{Kind: engine.KindRunStarted, Run: "r", Time: t0, Mode: "overlay", Command: []string{"make", "test"}, Workspace: "/w"}
	for i := range n {
		rs.Hypotheses = append(rs.Hypotheses, fmt.Sprintf("hyp-%02d", i))
	}
	out := []engine.Event{rs}
	for i, name := range rs.Hypotheses {
		out = append(out, engine.Event{Kind: engine.KindHypStarted, Hyp: name, Time: t0.Add(time.Duration(i) * 10 * time.Millisecond)})
		out = append(out, engine.Event{Kind: engine.KindOutput, Hyp: name, Text: name + " building\n" + name + " testing\n"})
		if i >= n-3 {
			continue // still running
		}
		st, code := engine.StatusFailed, 1
		if i%4 == 1 && !noWinner {
			st, code = engine.StatusPassed, 0
		}
		out = append(out, engine.Event{Kind: engine.KindHypFinished, Hyp: name, Time: t0.Add(time.Second),
			Result: &engine.Result{Name: name, Status: st, ExitCode: ip(code), DurationMS: int64(500 + i), ChangedLines: i % 7,
				Tests: &engine.Tests{Framework: "go", Passed: 3, Failed: code}}})
	}
	return out
}

// finishMixed ends mixedEvents: the running three fail, and the report
// ranks everyone (winner: the first that passed, if any).
func finishMixed(m *Model, n int, noWinner bool) {
	rep := &engine.Report{Schema: engine.ReportSchema, Run: "r", Workspace: "/w", Command: []string{"make", "test"}, Mode: "overlay", StartedAt: t0, DurationMS: 2000}
	var passed, failed []*engine.Result
	for i := range n {
		name := fmt.Sprintf("hyp-%02d", i)
		st, code := engine.StatusFailed, 1
		if i%4 == 1 && !noWinner && i < n-3 {
			st, code = engine.StatusPassed, 0
		}
		r := &engine.Result{Name: name, Status: st, ExitCode: ip(code), DurationMS: int64(500 + i), ChangedLines: i % 7,
			Tests: &engine.Tests{Framework: "go", Passed: 3, Failed: code}}
		if i >= n-3 {
			m.Update(EventMsg(engine.Event{Kind: engine.KindHypFinished, Hyp: name, Time: t0.Add(2 * time.Second), Result: r}))
		}
		if st == engine.StatusPassed {
			passed = append(passed, r)
		} else {
			failed = append(failed, r)
		}
	}
	rep.Hypotheses = append(passed, failed...)
	for i, r := range rep.Hypotheses {
		r.Rank = i + 1
	}
	if len(passed) > 0 {
		w := passed[0].Name
		rep.Winner = &w
	}
	m.Update(EventMsg(engine.Event{Kind: engine.KindRunFinished, Report: rep}))
	m.Update(RunDoneMsg{Report: rep})
}

// At 80x24 and 120x40, with 7 and 50 hypotheses, the running
// ones are on screen (finished ones step aside), and the goldens pin
// the live and finished screens.
func TestGoldenManyHypotheses(t *testing.T) {
	for _, n := range []int{7, 50} {
		for _, sz := range [][2]int{{80, 24}, {120, 40}} {
			w, h := sz[0], sz[1]
			m := newTestModel(t, termenv.Ascii, w, h, mixedEvents(n, n == 7))
			live := m.View()
			checkFits(t, live, w, h)
			cols := strings.SplitN(live, "── leaderboard", 2)[0]
			if !strings.Contains(cols, fmt.Sprintf("hyp-%02d", n-3)) || !strings.Contains(cols, "running") {
				t.Errorf("%dx%d, %d hypotheses: the running ones are not in the columns:\n%s", w, h, n, live)
			}
			golden(t, fmt.Sprintf("many_%d_%dx%d_live", n, w, h), live)

			finishMixed(m, n, n == 7)
			done := m.View()
			checkFits(t, done, w, h)
			if n == 7 && w == 120 && strings.Contains(done, "+ 6 more") {
				t.Errorf("7 hypotheses, no winner, 120x40: the leaderboard shrank to one row:\n%s", done)
			}
			golden(t, fmt.Sprintf("many_%d_%dx%d_done", n, w, h), done)
		}
	}
}

// The leaderboard scrolls with any number of rows and keeps the selection
// visible: j/k, G/End, g/Home, PgDn/PgUp; / filters it by name.
func TestLeaderboardScrollsAndFilters(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		w, h := sz[0], sz[1]
		m := newTestModel(t, termenv.Ascii, w, h, mixedEvents(50, false))
		finishMixed(m, 50, false)
		m.Update(tea.KeyMsg{Type: tea.KeyTab}) // the leaderboard
		if m.focus != paneLeaderboard {
			t.Fatalf("tab: focus %v", m.focus)
		}
		visible := func(name string) bool {
			for _, l := range strings.Split(ansi.Strip(m.View()), "\n") {
				if strings.Contains(l, name) && (strings.Contains(l, "›") || strings.Contains(l, ">")) {
					return true
				}
			}
			return false
		}
		last := m.order()[49].name
		for _, k := range []tea.KeyMsg{press("G"), {Type: tea.KeyEnd}} {
			m.Update(press("g"))
			m.Update(k)
			if got := m.selected().name; got != last || !visible(last) {
				t.Errorf("%dx%d %v: selected %s (want %s), visible %v:\n%s", w, h, k, got, last, visible(last), m.View())
			}
		}
		for _, k := range []tea.KeyMsg{press("g"), {Type: tea.KeyHome}} {
			m.Update(press("G"))
			m.Update(k)
			if got := m.selected().name; got != m.order()[0].name || !visible(got) {
				t.Errorf("%dx%d %v: selected %s, want the first", w, h, k, got)
			}
		}
		m.Update(tea.KeyMsg{Type: tea.KeyPgDown})
		i := m.moveIndex()
		if i <= 1 || !visible(m.selected().name) {
			t.Errorf("%dx%d pgdn: at %d, visible %v", w, h, i, visible(m.selected().name))
		}
		m.Update(tea.KeyMsg{Type: tea.KeyPgUp})
		if m.moveIndex() != 0 {
			t.Errorf("%dx%d pgup back: at %d", w, h, m.moveIndex())
		}
		for range 30 {
			m.Update(press("j"))
		}
		if m.moveIndex() != 30 || !visible(m.selected().name) {
			t.Errorf("%dx%d 30×j: at %d, visible %v:\n%s", w, h, m.moveIndex(), visible(m.selected().name), m.View())
		}
		for range 5 {
			m.Update(press("k"))
		}
		if m.moveIndex() != 25 || !visible(m.selected().name) {
			t.Errorf("%dx%d 5×k: at %d", w, h, m.moveIndex())
		}
		// / filters by name; esc clears.
		m.Update(press("/"))
		for _, r := range "hyp-4" {
			m.Update(press(string(r)))
		}
		m.Update(tea.KeyMsg{Type: tea.KeyEnter})
		rows := m.order()
		if len(rows) != 10 || !strings.HasPrefix(m.selected().name, "hyp-4") {
			t.Errorf("%dx%d filter hyp-4: %d rows, selected %s", w, h, len(rows), m.selected().name)
		}
		v := ansi.Strip(m.View())
		if strings.Contains(v, "hyp-39") || !strings.Contains(v, "10 match") {
			t.Errorf("%dx%d the filtered leaderboard:\n%s", w, h, v)
		}
		m.Update(tea.KeyMsg{Type: tea.KeyEsc})
		if len(m.order()) != 50 {
			t.Errorf("%dx%d esc did not clear the filter: %d rows", w, h, len(m.order()))
		}
	}
}
