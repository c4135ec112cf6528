package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// shadow init writes a spec the loader accepts, with its "$schema", the
// guessed command and, from a directory of patches, one hypothesis each
// (in file name order: "fix b.patch" before "fix-a.diff");
// it does not overwrite without --force.
func TestInitWritesALoadableStarterSpec(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module x\n"), 0o644)
	pd := filepath.Join(t.TempDir(), "p")
	os.MkdirAll(pd, 0o755)
	os.WriteFile(filepath.Join(pd, "fix-a.diff"), []byte("--- a/v.txt\n+++ b/v.txt\n@@ -1 +1 @@\n-bad\n+good\n"), 0o644)
	os.WriteFile(filepath.Join(pd, "fix b.patch"), []byte("--- a/v.txt\n+++ b/v.txt\n@@ -1 +1 @@\n-bad\n+ok\n"), 0o644)
	out := filepath.Join(t.TempDir(), "s.json")
	stdout, errb, err := execCLI("", "init", "-C", ws, out, "--from-patches", pd)
	if err != nil {
		t.Fatalf("init: %v %s", err, errb)
	}
	if !strings.Contains(stdout, "3 hypothesis(es), command go test ./...") {
		t.Errorf("init said %q", stdout)
	}
	spec, _, err := engine.LoadSpec(out, nil)
	if err != nil {
		t.Fatalf("the spec init wrote does not load: %v", err)
	}
	var names []string
	for _, h := range spec.Hypotheses {
		names = append(names, h.Name)
	}
	if spec.Schema != SpecSchemaURL || strings.Join(names, ",") != "baseline,fix-b,fix-a" {
		t.Errorf("schema %q, names %v", spec.Schema, names)
	}
	var raw map[string]any
	b, _ := os.ReadFile(out)
	json.Unmarshal(b, &raw)
	if _, ok := raw["$schema"]; !ok {
		t.Errorf("no $schema key:\n%s", b)
	}
	if _, errb, err := execCLI("", "init", "-C", ws, out); code(err) != 2 || !strings.Contains(err.Error(), "exists") {
		t.Errorf("init over an existing file: exit %d %v %s", code(err), err, errb)
	}
	if _, _, err := execCLI("", "init", "-C", ws, "--force", out); err != nil {
		t.Errorf("init --force: %v", err)
	}
}
