package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/shadow-dev/shadow/snap"
)

// TestRecordedRunShowsVerifiedDiffAndIntegrityWarning: a recorded run
// picked in the timeline shows each hypothesis's diff from the verified
// records (records.ShowHyp, as shadow show and shadow_show do), never the
// report's, and, when the report was changed after the run sealed it, the
// integrity warning first in the detail pane.
func TestRecordedRunShowsVerifiedDiffAndIntegrityWarning(t *testing.T) {
	store, ws := snap.Store{Root: t.TempDir()}, t.TempDir()
	id := "20260101-000000.000-aaaaaa"
	rep := report(id, ws, "fix", "fix", "baseline")
	rep.Hypotheses[0].Diff = "--- a/v.txt\n+++ b/v.txt\n@@ -0,0 +1 @@\n+forged\n"
	r := recordRun(t, store, ws, id, 0, fixHyps(), rep)

	rows, err := newRunLister(store, ws).list()
	if err != nil || len(rows) != 1 {
		t.Fatalf("list: %v %v", rows, err)
	}
	rv, err := loadRun(rows[0])
	if err != nil {
		t.Fatal(err)
	}
	if d := rv.byName["fix"].result.Diff; !strings.Contains(d, "+good") || strings.Contains(d, "forged") || rv.warning != "" {
		t.Errorf("sound record: diff %q (want the recorded files', +good), warning %q", d, rv.warning)
	}

	p := filepath.Join(r.Dir, "report.json")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(b), `"make"`, `"mAke"`, 1)), 0o644)
	rv, err = loadRun(rows[0])
	if err != nil {
		t.Fatal(err)
	}
	if rv.warning == "" || !strings.Contains(rv.byName["fix"].result.Diff, "+good") {
		t.Fatalf("tampered report: warning %q, diff %q", rv.warning, rv.byName["fix"].result.Diff)
	}
	m := New(Options{Renderer: renderer(termenv.Ascii), Store: &store, Workspace: ws})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.show(rv)
	lines := m.detailLines(rv.byName["fix"], 100)
	if len(lines) == 0 || !strings.Contains(lines[0], "WARNING: ") {
		t.Errorf("the detail pane does not say the integrity warning first:\n%s", strings.Join(lines, "\n"))
	}
}
