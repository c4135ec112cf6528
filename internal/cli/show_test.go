package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/internal/records"
	"github.com/shadow-dev/shadow/snap"
)

// TestShowPrintsWhatEveryFrontEndPrints: `shadow show RUN/HYP` prints
// records.WriteHyp's text (what shadow_show prints too) before the full
// output; of a run whose report was changed after the run sealed it, the
// integrity warning first and the verified records' diff, never the
// report's; --json carries the warning.
func TestShowPrintsWhatEveryFrontEndPrints(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.WriteFile(filepath.Join(ws, "v.txt"), []byte("bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := `{"hypotheses":[{"name":"fix","edits":[{"path":"v.txt","content":"good\n"}]},{"name":"wrong","edits":[{"path":"v.txt","content":"worse\n"}]}]}`
	out, errb, err := execCLI(spec, "--headless", "--json", "--mode", "inplace", "-C", ws, "-", "--", "grep", "-q", "good", "v.txt")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errb)
	}
	var rep struct{ Run string }
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	store, err := defaultStore()
	if err != nil {
		t.Fatal(err)
	}
	dir := store.RunDir(ws, rep.Run)
	p := filepath.Join(dir, "report.json")
	b, _ := os.ReadFile(p)
	if !strings.Contains(string(b), "+worse") {
		t.Fatalf("report.json holds no +worse:\n%s", b)
	}
	os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "+worse", "+forged")), 0o644)

	out, errb, err = execCLI("", "show", "-C", ws, "@last/wrong")
	if err != nil {
		t.Fatalf("show: %v\n%s", err, errb)
	}
	h, err := records.ShowHyp(store, ws, snap.ReadRun(dir), "wrong")
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	records.WriteHyp(&want, h)
	if !strings.HasPrefix(out, want.String()) || !strings.HasPrefix(out, "WARNING: ") {
		t.Errorf("show does not print records.WriteHyp's text, the warning first:\n--- show\n%s\n--- WriteHyp\n%s", out, want.String())
	}
	if !strings.Contains(out, "+worse") || strings.Contains(out, "+forged") {
		t.Errorf("show must print the verified diff, not the tampered report's:\n%s", out)
	}
	out, _, err = execCLI("", "show", "--json", "-C", ws, "@last/wrong")
	var doc struct{ Warning, Diff string }
	if err != nil || json.Unmarshal([]byte(out), &doc) != nil || doc.Warning == "" || !strings.Contains(doc.Diff, "+worse") {
		t.Errorf("show --json: %v warning %q diff %q", err, doc.Warning, doc.Diff)
	}
}
