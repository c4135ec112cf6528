package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Dynamic completion: run ids and hypothesis names for show and apply
// (`shadow show @last/<TAB>`), *.json for a spec.
func TestCompletionOfRunsHypothesesAndSpecs(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(ws, "v.txt"), []byte("bad\n"), 0o644)
	spec := `{"hypotheses":[{"name":"fix","edits":[{"path":"v.txt","content":"good\n"}]},{"name":"wrong","edits":[{"path":"v.txt","content":"worse\n"}]}]}`
	if _, errb, err := execCLI(spec, "--headless", "--mode", "inplace", "-C", ws, "-", "--", "grep", "-q", "good", "v.txt"); err != nil {
		t.Fatalf("run: %v %s", err, errb)
	}
	out, _, err := execCLI("", "__complete", "show", "-C", ws, "@last/")
	if err != nil || !strings.Contains(out, "@last/fix\tpassed") || !strings.Contains(out, "@last/wrong\tfailed") {
		t.Errorf("show @last/<TAB>: %v\n%s", err, out)
	}
	out, _, err = execCLI("", "__complete", "apply", "-C", ws, "")
	if err != nil || !strings.Contains(out, "@last/") || !strings.Contains(out, ":6") { // NoSpace|NoFileComp
		t.Errorf("apply <TAB>: %v\n%s", err, out)
	}
	out, _, err = execCLI("", "__complete", "-C", ws, "")
	if err != nil || !strings.Contains(out, "json") || !strings.Contains(out, ":8") { // FilterFileExt
		t.Errorf("shadow <TAB>: %v\n%s", err, out)
	}
}

// shadow man DIR writes a page per command from the command tree.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	if _, errb, err := execCLI("", "man", dir); err != nil {
		t.Fatalf("man: %v %s", err, errb)
	}
	for _, p := range []string{"shadow.1", "shadow-apply.1", "shadow-show.1", "shadow-init.1"} {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil || !strings.Contains(string(b), ".TH \"SHADOW\"") {
			t.Errorf("%s: %v", p, err)
		}
	}
}
