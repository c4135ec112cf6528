package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/internal/records"
	"github.com/shadow-dev/shadow/snap"
)

// tamper rewrites a sealed record of the run (rel to its folder), as a
// command that reached the state dir could: old becomes new.
func tamper(t *testing.T, runDir, rel, old, new string) {
	t.Helper()
	p := filepath.Join(runDir, rel)
	b, err := os.ReadFile(p)
	if err != nil || !strings.Contains(string(b), old) {
		t.Fatalf("%s: %v (holds %q: %v)", p, err, old, strings.Contains(string(b), old))
	}
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), old, new)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestShowOfATamperedRecordWarnsAsShadowShowDoes: a run's report changed
// after the run sealed it (the diff and the verdict forged) is shown by
// shadow_show with the integrity warning first and the diff of the
// verified records (what apply would write), exactly as `shadow show`
// prints it (records.WriteHyp, which both use); a files record that does
// not verify is refused, as show and apply refuse it. Before records.ShowHyp,
// shadow_show printed the forged report's diff and no warning.
func TestShowOfATamperedRecordWarnsAsShadowShowDoes(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.WriteFile(filepath.Join(ws, "v.txt"), []byte("bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, New(ws, "test", nil))
	run := callTool(t, cs, "shadow_run", map[string]any{
		"hypotheses": []any{
			map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}},
			map[string]any{"name": "wrong", "edits": []any{map[string]any{"path": "v.txt", "content": "worse\n"}}},
		},
		"command": []string{"grep", "-q", "good", "v.txt"},
		"mode":    "inplace",
	})
	if run.IsError {
		t.Fatalf("shadow_run: %s", resultText(run))
	}
	rep := structuredAs[RunDoc](t, run)
	store, err := snap.DefaultStore()
	if err != nil {
		t.Fatal(err)
	}
	dir := store.RunDir(ws, rep.RunID)

	// Untampered: no warning, and the text is records.WriteHyp's.
	sh := callTool(t, cs, "shadow_show", map[string]any{"ref": "@last/wrong"})
	if sh.IsError || strings.Contains(resultText(sh), "WARNING") || !strings.Contains(resultText(sh), "+worse") {
		t.Fatalf("shadow_show of a sound record:\n%s", resultText(sh))
	}

	tamper(t, dir, "report.json", `+worse`, `+forged`)
	sh = callTool(t, cs, "shadow_show", map[string]any{"ref": "@last/wrong"})
	text := resultText(sh)
	doc := structuredAs[ShowHypDoc](t, sh)
	if sh.IsError || !strings.HasPrefix(text, "WARNING: ") || doc.Warning == "" {
		t.Errorf("shadow_show of a tampered report: no integrity warning first (doc.warning %q):\n%s", doc.Warning, text)
	}
	if !strings.Contains(text, "+worse") || strings.Contains(text, "+forged") || !strings.Contains(doc.Diff, "+worse") {
		t.Errorf("shadow_show must show the verified records' diff, not the tampered report's:\n%s", text)
	}
	if run := callTool(t, cs, "shadow_show", map[string]any{"ref": "@last"}); run.IsError || !strings.HasPrefix(resultText(run), "WARNING: ") {
		t.Errorf("shadow_show RUN of a tampered report: no integrity warning first:\n%.400s", resultText(run))
	}
	h, err := records.ShowHyp(store, ws, snap.ReadRun(dir), "wrong")
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	records.WriteHyp(&want, h)
	if !strings.HasPrefix(text, want.String()) {
		t.Errorf("shadow_show does not print what shadow show prints (records.WriteHyp):\n--- shadow_show\n%s\n--- WriteHyp\n%s", text, want.String())
	}

	tamper(t, dir, "hyps/fix/files.json", `"v.txt"`, `"w.txt"`)
	bad := callTool(t, cs, "shadow_show", map[string]any{"ref": "@last/fix"})
	if !bad.IsError || !strings.Contains(resultText(bad), "refusing its record") {
		t.Errorf("shadow_show of a tampered files record must refuse it: %v\n%s", bad.IsError, resultText(bad))
	}
}
