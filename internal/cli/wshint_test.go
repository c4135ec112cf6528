package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Run from a parent directory outside any checkout, the workspace is that
// parent and a patch's file is not found: the refusal says why and where
// the file is.
func TestPatchFromOutsideTheCheckoutSaysTheWorkspace(t *testing.T) {
	parent := t.TempDir()
	proj := filepath.Join(parent, "proj")
	os.MkdirAll(proj, 0o755)
	gitInit(t, proj)
	os.WriteFile(filepath.Join(proj, "calc.py"), []byte("def add(a, b):\n    return a - b\n"), 0o644)
	diff := "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n"
	os.WriteFile(filepath.Join(parent, "fix.diff"), []byte(diff), 0o644)
	t.Chdir(parent)
	_, _, err := execCLI("", "--headless", "--no-record", "--patch", "fix.diff", "--", "true")
	if code(err) != 2 || err == nil {
		t.Fatalf("exit %d: %v", code(err), err)
	}
	for _, want := range []string{"patch changes calc.py, but it does not exist", "the workspace is " + parent, "in no git checkout", "calc.py is in the checkout proj", "-C proj"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	// In the checkout, the same refusal of a really missing file has no
	// such hint.
	t.Chdir(proj)
	os.Remove(filepath.Join(proj, "calc.py"))
	_, _, err = execCLI("", "--headless", "--no-record", "--patch", "../fix.diff", "--", "true")
	if err == nil || strings.Contains(err.Error(), "the workspace is") {
		t.Errorf("in the checkout: %v", err)
	}
}
