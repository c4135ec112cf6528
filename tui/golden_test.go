package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"
	"github.com/shadow-dev/shadow/snap"
)

var sizes = [][2]int{{200, 50}, {140, 40}, {100, 30}, {80, 24}, {60, 20}}

// TestGoldenScreens renders whole screens at every size the TUI must
// serve, mid-run and finished, in each pane, and checks none overflows.
func TestGoldenScreens(t *testing.T) {
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		for _, phase := range []string{"live", "done"} {
			for p := range paneCount {
				name := fmt.Sprintf("screen_%dx%d_%s_%s", w, h, phase, paneNames[p])
				t.Run(name, func(t *testing.T) {
					m := newTestModel(t, termenv.Ascii, w, h, liveEvents())
					if phase == "done" {
						for _, ev := range finishEvents() {
							m.Update(EventMsg(ev))
						}
						m.Update(RunDoneMsg{Report: finishEvents()[2].Report})
					}
					m.tl.runs = testRuns()
					m.tl.lister = newRunLister(snap.Store{Root: t.TempDir()}, "/work/demo")
					m.tl.sel = len(m.tl.runs) - 1
					for range p {
						m.Update(tea.KeyMsg{Type: tea.KeyTab})
					}
					frame := m.View()
					checkFits(t, frame, w, h)
					if strings.Contains(frame, "\x1b") {
						t.Errorf("the Ascii profile (NO_COLOR) must print no escape sequence")
					}
					golden(t, name, frame)
				})
			}
		}
	}
}

// TestGolden256 pins the 256-colour rendering of the finished screen.
func TestGolden256(t *testing.T) {
	m := newTestModel(t, termenv.ANSI256, 100, 30, liveEvents(), finishEvents())
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	frame := m.View()
	checkFits(t, frame, 100, 30)
	if !strings.Contains(frame, "\x1b[38;5;") {
		t.Errorf("256-colour profile: no 256-colour sequence in the frame")
	}
	if strings.Contains(frame, "\x1b[38;2;") {
		t.Errorf("256-colour profile: a true-colour sequence leaked")
	}
	golden(t, "screen_100x30_done_leaderboard_ansi256", frame)
}

// TestGoldenComponents renders each component alone.
func TestGoldenComponents(t *testing.T) {
	st := NewStyles(renderer(termenv.Ascii))
	rv := newRunView("")
	for _, ev := range liveEvents() {
		rv.apply(ev)
	}
	now := t0.Add(2 * time.Second)
	fin := newRunView("")
	for _, ev := range append(liveEvents(), finishEvents()...) {
		fin.apply(ev)
	}
	cases := map[string]string{
		"columns_live":       renderColumns(st, rv, 2, 0, 90, 12, now, 3),
		"columns_scrolled":   renderColumns(st, rv, 3, 2, 60, 8, now, 0),
		"leaderboard_live":   renderLeaderboard(st, rv, "swap", 90, 6, now),
		"leaderboard_done":   renderLeaderboard(st, fin, "plus-op", 90, 6, now),
		"leaderboard_narrow": renderLeaderboard(st, fin, "swap", 40, 6, now),
		"diff":               strings.Join(highlightDiff(st, fixDiff, 60), "\n"),
		"timeline":           renderTimeline(st, testRuns(), 1, "20260314-150926-abc123", 90, 5),
		"timeline_states":    renderTimeline(st, stateRuns(), 0, "20260314-150926-abc123", 100, 6),
	}
	for name, got := range cases {
		t.Run(name, func(t *testing.T) { golden(t, "component_"+name, got) })
	}
}

func testRuns() []runRow {
	return []runRow{
		{ID: "20260314-140000-aaaaaa", StartedAt: t0.Add(-time.Hour), Command: []string{"go", "test", "./..."}, Hyps: 3, State: snap.StateFinished},
		{ID: "20260314-143000-bbbbbb", StartedAt: t0.Add(-30 * time.Minute), Command: []string{"go", "test", "./..."}, Hyps: 2, State: snap.StateFinished, Winner: "plus"},
		{ID: "20260314-150926-abc123", StartedAt: t0, Command: []string{"go", "test", "./..."}, State: snap.StateRunning},
	}
}

// stateRuns has a run in every state the timeline tells apart.
func stateRuns() []runRow {
	cmd := []string{"go", "test", "./..."}
	return []runRow{
		{ID: "20260314-120000-dead00", StartedAt: t0.Add(-3 * time.Hour), Command: cmd, Hyps: 2, State: snap.StateInterrupted},
		{ID: "20260314-130000-cccccc", StartedAt: t0.Add(-2 * time.Hour), Command: cmd, Hyps: 2, State: snap.StateFinished, Cancelled: true},
		{ID: "20260314-140000-aaaaaa", StartedAt: t0.Add(-time.Hour), Command: cmd, Hyps: 3, State: snap.StateFinished},
		{ID: "20260314-143000-cancel", StartedAt: t0.Add(-30 * time.Minute), Command: cmd, Hyps: 3, State: snap.StateFinished, Cancelled: true, Winner: "plus"},
		{ID: "20260314-150000-other0", StartedAt: t0.Add(-9 * time.Minute), Command: []string{"make"}, Hyps: 1, State: snap.StateRunning},
		{ID: "20260314-150926-abc123", StartedAt: t0, Command: cmd, Hyps: 4, State: snap.StateRunning},
	}
}

// TestSizeSweep renders every width and height from tiny to wide, with
// many hypotheses, and checks nothing ever overflows.
func TestSizeSweep(t *testing.T) {
	for _, n := range []int{1, 8} {
		m := newTestModel(t, termenv.ANSI256, 100, 30, manyEvents(n))
		for w := 1; w <= 160; w += 7 {
			for h := 1; h <= 45; h += 4 {
				for p := range paneCount {
					m.focus = p
					m.Update(tea.WindowSizeMsg{Width: w, Height: h})
					checkFits(t, m.View(), w, h)
				}
			}
		}
	}
}
