package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"
	"github.com/shadow-dev/shadow/engine"
)

func press(s string) tea.KeyMsg {
	switch s {
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "home":
		return tea.KeyMsg{Type: tea.KeyHome}
	case "end":
		return tea.KeyMsg{Type: tea.KeyEnd}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// settle runs cmd and what its messages return, in turn, synchronously
// (ticks and quits aside), as the program would.
func settle(m *Model, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		switch msg := msg.(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tickMsg, tea.QuitMsg, nil:
		default:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

func TestStatusTransitionsAndCounts(t *testing.T) {
	m := newTestModel(t, termenv.Ascii, 100, 30)
	evs := liveEvents()
	m.Update(EventMsg(evs[0]))
	for _, h := range m.live.hyps {
		if h.status != engine.StatusQueued {
			t.Fatalf("%s: %s before it started, want queued", h.name, h.status)
		}
	}
	for _, ev := range evs[1:] {
		m.Update(EventMsg(ev))
	}
	want := map[string]string{"baseline": "failed", "plus-op": "passed", "swap": "running", "rewrite": "running"}
	for n, s := range want {
		if got := m.live.byName[n].status; got != s {
			t.Errorf("%s: status %s, want %s", n, got, s)
		}
	}
	if tc := m.live.byName["swap"].tests; tc == nil || tc.Failed != 1 {
		t.Errorf("swap live counts = %+v, want 1 failed", tc)
	}
	m.Update(tickMsg(t0))
	frame := m.View()
	for _, s := range []string{"running 1.9s", "0 passed 1 failed", "2/4 done"} {
		if !strings.Contains(frame, s) {
			t.Errorf("frame lacks %q:\n%s", s, frame)
		}
	}
}

func TestLeaderboardOrder(t *testing.T) {
	m := newTestModel(t, termenv.Ascii, 100, 30, liveEvents())
	names := func() string {
		var out []string
		for _, h := range m.live.ranked() {
			out = append(out, h.name)
		}
		return strings.Join(out, ",")
	}
	if got := names(); got != "plus-op,baseline,swap,rewrite" {
		t.Errorf("provisional order %s", got)
	}
	for _, ev := range finishEvents() {
		m.Update(EventMsg(ev))
	}
	if got := names(); got != "plus-op,swap,rewrite,baseline" {
		t.Errorf("final order %s, want the report's", got)
	}
	if m.selected().name != "plus-op" {
		t.Errorf("after the run the winner is selected, got %s", m.selected().name)
	}
}

func TestOutputRingBounded(t *testing.T) {
	var r ring
	var b strings.Builder
	for i := range 10000 {
		b.WriteString(strings.Repeat("x", i%50))
		b.WriteString("\n")
	}
	for range 20 {
		r.write(b.String())
	}
	r.write("partial")
	if r.n != ringCap {
		t.Errorf("ring holds %d lines, want %d", r.n, ringCap)
	}
	last := r.last(3)
	if len(last) != 3 || last[2] != "partial" || last[1] != strings.Repeat("x", 9999%50) {
		t.Errorf("last lines = %q", last)
	}
	r.write(" continued\nnext\n")
	if got := r.last(2); got[0] != "partial continued" || got[1] != "next" {
		t.Errorf("partial line not joined: %q", got)
	}
	r.write(strings.Repeat("y", 1<<20))
	if len(r.partial) > maxLineBytes {
		t.Errorf("a line without newline grew to %d bytes", len(r.partial))
	}
}

func TestSanitize(t *testing.T) {
	cases := []struct{ in, color, plain string }{
		{"plain", "plain", "plain"},
		{"\x1b[31mred\x1b[0m", "\x1b[31mred\x1b[0m\x1b[0m", "red"},
		{"a\tb", "a   b", "a   b"},
		{"50%\r100%", "100%", "100%"},
		{"\x1b]0;title\x07x\x1b[2Ky\x1b[1;1H", "xy", "xy"},
		{"bell\a", "bell", "bell"},
		{"bad\xffutf", "bad\uFFFDutf", "bad\uFFFDutf"},
	}
	for _, c := range cases {
		if got := sanitize(c.in, true); got != c.color {
			t.Errorf("sanitize(%q, color) = %q, want %q", c.in, got, c.color)
		}
		if got := sanitize(c.in, false); got != c.plain {
			t.Errorf("sanitize(%q) = %q, want %q", c.in, got, c.plain)
		}
	}
}

func TestQuitConfirmDuringRun(t *testing.T) {
	cancelled := 0
	m := newTestModel(t, termenv.Ascii, 100, 30, liveEvents())
	m.opts.Cancel = func() { cancelled++ }
	if _, cmd := m.Update(press("q")); cmd != nil || m.ask.kind != confirmQuit {
		t.Fatalf("q during a run must ask first")
	}
	if !strings.Contains(m.View(), "Cancel it and quit? [y/N]") {
		t.Errorf("no question on screen")
	}
	m.Update(press("n"))
	if cancelled != 0 || m.ask.kind != confirmNone {
		t.Fatalf("n must keep the run going")
	}
	m.Update(press("q"))
	_, cmd := m.Update(press("y"))
	if cancelled != 1 || isQuit(cmd) {
		t.Fatalf("y cancels (%d) and waits for the engine before quitting", cancelled)
	}
	_, cmd = m.Update(RunDoneMsg{Report: &engine.Report{Cancelled: true}})
	if !isQuit(cmd) {
		t.Errorf("the engine returned after a confirmed cancel: quit")
	}
}

func TestCtrlCCancelsAtOnce(t *testing.T) {
	cancelled := 0
	m := newTestModel(t, termenv.Ascii, 100, 30, liveEvents())
	m.opts.Cancel = func() { cancelled++ }
	m.Update(press("ctrl+c"))
	if cancelled != 1 || !m.quitting {
		t.Errorf("ctrl+c during a run cancels without asking")
	}
}

func TestQuitAfterRun(t *testing.T) {
	m := newTestModel(t, termenv.Ascii, 100, 30, liveEvents(), finishEvents())
	rep := finishEvents()[2].Report
	m.Update(RunDoneMsg{Report: rep})
	_, cmd := m.Update(press("q"))
	if !isQuit(cmd) {
		t.Fatalf("q after the run quits at once")
	}
	if m.Report() != rep || m.Report().Winner == nil {
		t.Errorf("the report (and so the exit code: winner) must be kept")
	}
}

func TestNavigationAndPanes(t *testing.T) {
	m := newTestModel(t, termenv.Ascii, 60, 20, liveEvents(), finishEvents())
	m.Update(RunDoneMsg{Report: finishEvents()[2].Report})
	m.Update(press("right"))
	m.Update(press("l"))
	if m.selected().name != "rewrite" || m.sel.colOff != 2 {
		t.Errorf("selected %s, offset %d: want rewrite scrolled into view", m.selected().name, m.sel.colOff)
	}
	if !strings.Contains(m.View(), "rewrite") {
		t.Errorf("selected column not visible")
	}
	m.Update(press("h"))
	if m.selected().name != "swap" {
		t.Errorf("h moves back, got %s", m.selected().name)
	}
	m.Update(press("tab"))
	m.Update(press("down"))
	if m.selected().name != "rewrite" {
		t.Errorf("down in the leaderboard moves in rank order, got %s", m.selected().name)
	}
	m.Update(press("tab"))
	if m.focus != paneDiff || !strings.Contains(m.View(), "── rewrite · ") {
		t.Errorf("tab to the diff pane")
	}
	m.Update(press("?"))
	if !m.help.ShowAll {
		t.Errorf("? shows the full help")
	}
	checkFits(t, m.View(), 60, 20)
}

func TestOpenFullOutputReadsInCmd(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "output.log")
	if err := os.WriteFile(log, []byte("first line\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, termenv.Ascii, 80, 24, liveEvents())
	m.live.byName["baseline"].result.Log = log
	m.selectName("baseline")
	_, cmd := m.Update(press("enter"))
	if cmd == nil || !m.out.open {
		t.Fatalf("enter must open the output and read the log in a command")
	}
	settle(m, cmd)
	if v := m.View(); !strings.Contains(v, "second line") || !strings.Contains(v, "output of baseline") {
		t.Errorf("output not shown:\n%s", v)
	}
	m.Update(press("esc"))
	if m.out.open {
		t.Errorf("esc closes the output")
	}
}

func TestApplyAsksThenAppliesInCmd(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "v.txt"), []byte("bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hyps := []engine.Hypothesis{{Name: "baseline"}, {Name: "plus-op", Files: []engine.File{{Path: "v.txt", Content: []byte("good\n"), Mode: 0o644}}}}
	m := newTestModel(t, termenv.Ascii, 100, 30, liveEvents())
	m.opts.Workspace, m.opts.Hyps = ws, hyps
	m.opts.Originals = engine.ReadOriginals(ws, hyps)
	m.selectName("plus-op")
	if cmd := m.onKey(press("a")); cmd != nil || m.ask.kind != confirmApply {
		t.Fatalf("a must ask first")
	}
	_, cmd := m.Update(press("y"))
	if cmd == nil {
		t.Fatalf("y must return the apply command")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "v.txt")); string(b) != "bad\n" {
		t.Fatalf("Update wrote the file itself")
	}
	m.Update(cmd())
	if b, _ := os.ReadFile(filepath.Join(ws, "v.txt")); string(b) != "good\n" {
		t.Errorf("apply did not write: %q", b)
	}
	if !strings.Contains(m.status, "applied plus-op") {
		t.Errorf("status %q", m.status)
	}
}

// A run that every remote node failing stopped reads "stopped", not a
// plain "no winner" as if every hypothesis had run and failed.
func TestHeaderSaysAStoppedRunStopped(t *testing.T) {
	m := newTestModel(t, termenv.Ascii, 100, 30, liveEvents())
	m.Update(RunDoneMsg{Report: &engine.Report{Error: "every remote node failed: node n1: connection lost"}})
	if v := m.View(); !strings.Contains(v, "stopped · no winner") {
		t.Errorf("header of a stopped run:\n%s", v)
	}
}
