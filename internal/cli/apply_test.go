package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shadow apply refuses a candidate that did not pass unless --force, says
// why (exit 1), and writes nothing.
func TestApplyRefusesAFailedCandidateUnlessForced(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	v := filepath.Join(ws, "v.txt")
	if err := os.WriteFile(v, []byte("bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(t.TempDir(), "spec.json")
	os.WriteFile(spec, []byte(`{"hypotheses":[{"name":"fix","edits":[{"path":"v.txt","content":"good\n"}]},{"name":"wrong","edits":[{"path":"v.txt","content":"worse\n"}]}]}`), 0o644)
	if out, errb, err := execCLI("", "--headless", "--mode", "inplace", "-C", ws, spec, "--", "grep", "-q", "good", "v.txt"); code(err) != 0 {
		t.Fatalf("run: %v\n%s\n%s", err, out, errb)
	}
	for _, args := range [][]string{{"apply", "-C", ws, "@last/wrong"}, {"apply", "-C", ws, "--dry-run", "@last/wrong"}} {
		_, errb, err := execCLI("", args...)
		if code(err) != 1 || !strings.Contains(errb, "not applied: ") || !strings.Contains(errb, "/wrong did not pass (failed") || !strings.Contains(errb, "--force") {
			t.Errorf("%v: exit %d, stderr %q", args, code(err), errb)
		}
	}
	if b, _ := os.ReadFile(v); string(b) != "bad\n" {
		t.Fatalf("a refused apply wrote: %q", b)
	}
	out, errb, err := execCLI("", "apply", "-C", ws, "--force", "@last/wrong")
	if code(err) != 0 || !strings.Contains(out, "applied ") {
		t.Errorf("apply --force: exit %d, %s %s", code(err), out, errb)
	}
	if b, _ := os.ReadFile(v); string(b) != "worse\n" {
		t.Errorf("apply --force did not write: %q", b)
	}
}
