package tui

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/shadow-dev/shadow/engine"
)

// updating reports -update: the flag is registered by x/exp/golden (which
// teatest imports), and this package's goldens follow it too.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func TestMain(m *testing.M) {
	time.Local = time.UTC
	os.Setenv("HOME", "/nonexistent-home")
	os.Exit(m.Run())
}

// renderer returns a lipgloss renderer pinned to a colour profile, on a
// dark background, whatever terminal runs the tests.
func renderer(p termenv.Profile) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(os.Stdout)
	r.SetColorProfile(p)
	r.SetHasDarkBackground(true)
	return r
}

// newTestModel is a live model with the clock pinned, sized w×h.
func newTestModel(t testing.TB, p termenv.Profile, w, h int, evs ...[]engine.Event) *Model {
	m := New(Options{Renderer: renderer(p), Workspace: "/work/demo", Live: true, Now: func() time.Time { return t0.Add(2 * time.Second) }})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	for _, list := range evs {
		for _, ev := range list {
			m.Update(EventMsg(ev))
		}
	}
	m.Update(tickMsg(t0)) // events are drawn at the next tick
	return m
}

// checkFits fails when a frame overflows its window.
func checkFits(t *testing.T, frame string, w, h int) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) > h {
		t.Errorf("%d lines, window has %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("line %d is %d cells wide, window has %d: %q", i, n, w, l)
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test ./tui -run %s -update to accept):\n--- got\n%s\n--- want\n%s", path, t.Name(), got, want)
	}
}
