package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shadow_apply refuses a candidate that did not pass unless force, says
// why, and writes only through apply's checks.
func TestApplyToolRefusesAFailedCandidateUnlessForced(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	v := filepath.Join(ws, "v.txt")
	if err := os.WriteFile(v, []byte("bad\n"), 0o644); err != nil {
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

	for _, args := range []map[string]any{{"ref": "@last/wrong"}, {"ref": "@last/wrong", "dry_run": true}} {
		res := callTool(t, cs, "shadow_apply", args)
		if txt := resultText(res); !res.IsError || !strings.Contains(txt, "did not pass (failed") || !strings.Contains(txt, "force: true") {
			t.Errorf("shadow_apply %v of a failed candidate: error %v, %s", args, res.IsError, txt)
		}
	}
	if b, _ := os.ReadFile(v); string(b) != "bad\n" {
		t.Fatalf("a refused apply wrote: %q", b)
	}

	dry := callTool(t, cs, "shadow_apply", map[string]any{"ref": "@last/fix", "dry_run": true})
	if d := structuredAs[ApplyDoc](t, dry); dry.IsError || !d.DryRun || len(d.Applied) != 1 || d.Applied[0] != "v.txt" {
		t.Errorf("dry run: %+v %s", d, resultText(dry))
	}
	checkOutputSchema(t, cs, "shadow_apply", dry)
	if b, _ := os.ReadFile(v); string(b) != "bad\n" {
		t.Fatalf("a dry run wrote: %q", b)
	}

	forced := callTool(t, cs, "shadow_apply", map[string]any{"ref": "@last/wrong", "force": true})
	if d := structuredAs[ApplyDoc](t, forced); forced.IsError || len(d.Applied) != 1 {
		t.Errorf("forced apply: %+v %s", d, resultText(forced))
	}
	if b, _ := os.ReadFile(v); string(b) != "worse\n" {
		t.Errorf("forced apply did not write: %q", b)
	}
	// v.txt changed since the run started: the winner is refused now.
	fix := callTool(t, cs, "shadow_apply", map[string]any{"ref": "@last/fix"})
	if !fix.IsError || !strings.Contains(resultText(fix), "changed in the checkout") {
		t.Errorf("apply over a changed target: %s", resultText(fix))
	}
	bad := callTool(t, cs, "shadow_apply", map[string]any{"ref": "@last/fix", "forse": true})
	if !bad.IsError || !strings.Contains(resultText(bad), "forse: unknown field") {
		t.Errorf("unknown field: %s", resultText(bad))
	}
}
