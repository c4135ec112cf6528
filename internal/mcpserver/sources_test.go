package mcpserver

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// shadow_run takes patches and refs as the CLI's --patch and --ref do:
// no hypotheses needed, each named after its file or ref.
func TestRunTakesPatchesAndRefs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e", "-C", ws}, args...)...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(ws, "v.txt"), []byte("bad\n"), 0o644)
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "start")
	git("checkout", "-qb", "agent/fix")
	os.WriteFile(filepath.Join(ws, "v.txt"), []byte("good\n"), 0o644)
	git("commit", "-qam", "fix")
	git("checkout", "-q", "-")
	pd := t.TempDir()
	os.WriteFile(filepath.Join(pd, "worse.diff"), []byte("--- a/v.txt\n+++ b/v.txt\n@@ -1 +1 @@\n-bad\n+worse\n"), 0o644)

	cs := connect(t, New(ws, "test", nil))
	res := callTool(t, cs, "shadow_run", map[string]any{
		"patches": []string{filepath.Join(pd, "worse.diff")}, "refs": []string{"agent/fix"},
		"command": []string{"grep", "-q", "good", "v.txt"}, "mode": "inplace", "baseline": true,
	})
	if res.IsError {
		t.Fatalf("shadow_run: %s", resultText(res))
	}
	rep := structuredAs[engine.Report](t, res)
	got := map[string]string{}
	for _, h := range rep.Hypotheses {
		got[h.Name] = h.Status
	}
	if got["agent-fix"] != "passed" || got["worse"] != "failed" || got["baseline"] != "failed" || len(got) != 3 {
		t.Errorf("hypotheses %v\n%s", got, resultText(res))
	}
	bad := callTool(t, cs, "shadow_run", map[string]any{"refs": []string{"nosuch"}, "command": []string{"true"}, "mode": "inplace"})
	if !bad.IsError || !strings.Contains(resultText(bad), "refs nosuch: no such commit") {
		t.Errorf("unknown ref: %s", resultText(bad))
	}
	// The input schema lists them.
	list, _ := cs.ListTools(t.Context(), nil)
	for _, tl := range list.Tools {
		if tl.Name == "shadow_run" {
			b, _ := json.Marshal(tl.InputSchema)
			for _, f := range []string{`"patches"`, `"refs"`, `"worktrees"`} {
				if !strings.Contains(string(b), f) {
					t.Errorf("shadow_run's input schema lacks %s", f)
				}
			}
		}
	}
}
