package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"
	"github.com/shadow-dev/shadow/engine"
)

// writeLog writes a 5,000-line failure: noise, then pytest's FAILURES
// section at line 4001 (index 4000), then more noise.
func writeLog(t *testing.T, lines int) string {
	t.Helper()
	var b strings.Builder
	for i := range lines {
		switch i {
		case 4000:
			b.WriteString("=================================== FAILURES ===================================\n")
		case 4500:
			b.WriteString("E       needle: the assertion that failed\n")
		case 4700:
			b.WriteString("another Needle, capitalised\n")
		default:
			fmt.Fprintf(&b, "noise line %d\n", i)
		}
	}
	p := filepath.Join(t.TempDir(), "output.log")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func openLog(t *testing.T, path string) *Model {
	t.Helper()
	m := sixDone(t, termenv.Ascii, 100, 30)
	m.shown.byName["baseline"].result.Log = path
	m.selectName("baseline")
	_, cmd := m.Update(press("enter"))
	if !m.out.open {
		t.Fatal("enter did not open the output")
	}
	settle(m, cmd)
	return m
}

// keys presses each key in turn and runs what it returns.
func keys(m *Model, ks ...string) {
	for _, k := range ks {
		_, cmd := m.Update(press(k))
		settle(m, cmd)
	}
}

// TestOutputViewNavigation: the full output opens at the first error
// section, shows where it is, and g/G/Home/End/PgUp/PgDn move as in less;
// it never holds more than a window of the log.
func TestOutputViewNavigation(t *testing.T) {
	m := openLog(t, writeLog(t, 5000))
	v := m.View()
	if !strings.Contains(v, "= FAILURES =") || !strings.Contains(v, "line 4000/5000") {
		t.Fatalf("the output must open at the first failure with its position:\n%s", v)
	}
	if n := len(m.out.p.win); n == 0 || n > logWindow {
		t.Errorf("the view holds %d lines of the log, want a window of at most %d", n, logWindow)
	}
	keys(m, "g")
	if v := m.View(); !strings.Contains(v, "noise line 0\n") || !strings.Contains(v, "line 1/5000") {
		t.Errorf("g goes to the top:\n%s", v)
	}
	keys(m, "G")
	if v := m.View(); !strings.Contains(v, "noise line 4999") || !strings.Contains(v, "(100%)") {
		t.Errorf("G goes to the end:\n%s", v)
	}
	keys(m, "home", "pgdown")
	if off := m.out.p.off; off != m.out.p.h-1 {
		t.Errorf("pgdn from the top: offset %d, want %d", off, m.out.p.h-1)
	}
	keys(m, "end", "pgup")
	if off := m.out.p.off; off != 5000-m.out.p.h-(m.out.p.h-1) {
		t.Errorf("pgup from the end: offset %d", off)
	}
	// The wheel, once the mouse is captured, scrolls three lines.
	keys(m, "g")
	m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if m.out.p.off != 3 {
		t.Errorf("wheel down: offset %d, want 3", m.out.p.off)
	}
	keys(m, "esc")
	if m.out.open {
		t.Errorf("esc closes the output")
	}
}

// TestOutputSearch: / finds a line (smartcase), n and N go to the next
// and previous match, the match is marked, and a miss is said.
func TestOutputSearch(t *testing.T) {
	m := openLog(t, writeLog(t, 5000))
	keys(m, "g", "/", "n", "e", "e", "d", "l", "e", "enter")
	if m.out.p.match != 4500 {
		t.Fatalf("/needle: match at %d, want 4500", m.out.p.match)
	}
	v := m.View()
	if !strings.Contains(v, "needle: the assertion") || !strings.Contains(v, "/needle") {
		t.Errorf("the match is not on screen:\n%s", v)
	}
	keys(m, "n")
	if m.out.p.match != 4700 {
		t.Errorf("n: match at %d, want 4700 (lower case matches any case)", m.out.p.match)
	}
	keys(m, "n")
	if m.out.p.match != 4500 {
		t.Errorf("n wraps around: %d", m.out.p.match)
	}
	keys(m, "N")
	if m.out.p.match != 4700 {
		t.Errorf("N goes back (and wraps): %d", m.out.p.match)
	}
	keys(m, "/", "N", "e", "e", "d", "l", "e", "enter")
	if m.out.p.match != 4700 {
		t.Errorf("/Needle is case-sensitive: %d", m.out.p.match)
	}
	keys(m, "/", "x", "y", "z", "z", "y", "enter")
	if !strings.Contains(m.View(), "no match for xyzzy") {
		t.Errorf("a miss must be said:\n%s", m.View())
	}
	// Typing a query: backspace edits it, esc gives up.
	keys(m, "/", "a", "b", "backspace")
	if m.query.input != "a" || !strings.Contains(m.View(), "/a") {
		t.Errorf("query %q", m.query.input)
	}
	keys(m, "esc")
	if m.query.typing || !m.out.open {
		t.Errorf("esc ends the query, not the view")
	}
}

// TestSearchReadsInWindows: a match far past the first window is found
// by reading the log a window at a time.
func TestSearchReadsInWindows(t *testing.T) {
	x, err := indexLog(writeLog(t, 20000))
	if err != nil {
		t.Fatal(err)
	}
	if x.lines() != 20000 || x.first != 4000 {
		t.Fatalf("index: %d lines, first error at %d", x.lines(), x.first)
	}
	if i, _ := x.search("noise line 19999", 0, 1); i != 19999 {
		t.Errorf("forward search: %d", i)
	}
	if i, _ := x.search("noise line 3", 5000, -1); i != 3999 {
		t.Errorf("backward search: %d, want 3999", i)
	}
	if i, _ := x.search("absent", 100, 1); i != -1 {
		t.Errorf("a miss: %d", i)
	}
}

// TestDiffSearch: / in the results searches the diff.
func TestDiffSearch(t *testing.T) {
	m := sixDone(t, termenv.Ascii, 60, 14)
	keys(m, "/", "N", "o", "n", "e", "enter")
	if m.diff.p.match < 0 {
		t.Fatalf("/None found nothing in the diff")
	}
	if v := m.View(); !strings.Contains(v, "return None") {
		t.Errorf("the match is not in view:\n%s", v)
	}
	keys(m, "esc")
	if m.diff.p.query != "" {
		t.Errorf("esc clears the search")
	}
}

// TestPatchFile: y writes the selected diff as a patch and says where.
func TestPatchFile(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	m := sixDone(t, termenv.Ascii, 100, 30)
	keys(m, "y")
	path := filepath.Join(os.Getenv("TMPDIR"), "shadow-20260314-160000-six000-fix_all.patch")
	b, err := os.ReadFile(path)
	if err != nil || string(b) != twoHunkFix {
		t.Fatalf("patch %s: %v\n%s", path, err, b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("patch mode %v, want 0600", fi.Mode().Perm())
	}
	if !strings.Contains(m.View(), path) {
		t.Errorf("the path is not shown:\n%s", m.View())
	}
}

// TestOutputOfARunningHypothesisFollows: the output view of a hypothesis
// still running shows new lines as they come, and its log once it ends.
func TestOutputOfARunningHypothesisFollows(t *testing.T) {
	m := newTestModel(t, termenv.Ascii, 100, 30, liveEvents())
	m.selectName("swap")
	m.Update(press("enter"))
	if m.out.idx != nil || !m.out.open {
		t.Fatal("a running hypothesis's output is what it keeps in memory")
	}
	o := engine.Event{Kind: engine.KindOutput, Run: m.live.id, Hyp: "swap", Text: "a fresh line\n"}
	m.Update(EventMsg(o))
	m.Update(tickMsg(t0))
	if !strings.Contains(m.View(), "a fresh line") {
		t.Errorf("new output does not show:\n%s", m.View())
	}
	log := writeLog(t, 10)
	fin := finishEvents()[0]
	fin.Result.Log = log
	m.Update(EventMsg(fin))
	_, cmd := m.Update(tickMsg(t0))
	settle(m, cmd)
	if m.out.idx == nil || !strings.Contains(m.View(), "noise line 9") {
		t.Errorf("once it finished, the view reads its log:\n%s", m.View())
	}
}
