//go:build linux

package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// Hypotheses from where agents keep them (docs/cli.md: --patch, --ref,
// --worktrees). A real repository
// with three real worktrees (a committed fix on a branch, uncommitted
// work, an untracked new file plus an edit), a branch given with --ref,
// patch files given one by one and as a directory, mixed with a spec:
// each is one hypothesis named after its source, ranked, recorded and
// applicable like any other.
func TestHypothesesFromPatchesRefsAndWorktrees(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	e := e2e.NewEnv(t)
	e.Write("v.txt", "bad\n", 0o644)
	e.Write("lib.txt", "one\ntwo\n", 0o644)
	e2e.GitIn(t, e.WS, "init", "-q")
	e2e.GitIn(t, e.WS, "add", ".")
	e2e.GitIn(t, e.WS, "commit", "-qm", "start")

	// A branch with a committed fix, in its own worktree.
	wts := t.TempDir()
	committed := filepath.Join(wts, "agent-committed")
	e2e.GitIn(t, e.WS, "worktree", "add", "-q", "-b", "agent/fix", committed)
	os.WriteFile(filepath.Join(committed, "v.txt"), []byte("good\n"), 0o644)
	e2e.GitIn(t, committed, "commit", "-qam", "fix v")
	// Uncommitted work that does not fix it.
	dirty := filepath.Join(wts, "agent-dirty")
	e2e.GitIn(t, e.WS, "worktree", "add", "-q", "-b", "agent/dirty", dirty)
	os.WriteFile(filepath.Join(dirty, "v.txt"), []byte("worse\n"), 0o644)
	// An untracked new file and an uncommitted fix.
	untracked := filepath.Join(wts, "agent-untracked")
	e2e.GitIn(t, e.WS, "worktree", "add", "-q", "-b", "agent/new", untracked)
	os.WriteFile(filepath.Join(untracked, "v.txt"), []byte("good\n"), 0o644)
	os.WriteFile(filepath.Join(untracked, "extra.txt"), []byte("needed\n"), 0o644)

	patches := filepath.Join(e.Dir, "patches")
	os.MkdirAll(patches, 0o755)
	os.WriteFile(filepath.Join(patches, "p-good.diff"), []byte("--- a/v.txt\n+++ b/v.txt\n@@ -1 +1 @@\n-bad\n+good\n"), 0o644)
	os.WriteFile(filepath.Join(patches, "p-lib.patch"), []byte("--- a/lib.txt\n+++ b/lib.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"), 0o644)
	single := filepath.Join(e.Dir, "single.diff")
	os.WriteFile(single, []byte("--- a/v.txt\n+++ b/v.txt\n@@ -1 +1 @@\n-bad\n+nope\n"), 0o644)
	spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "from-spec", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}}}})

	// The checkout (and HEAD) are the workspace: the state and cwd are
	// elsewhere. -C points at it.
	cmd := []string{"sh", "-c", `test "$(cat v.txt)" = good && { test ! -e extra.txt || test "$(cat extra.txt)" = needed; }`}
	out, stderr, code := e.Shadow(append([]string{"--json", "--baseline", "-C", e.WS, "--worktrees", "--ref", "agent/fix", "--patch", patches, "--patch", single, spec, "--"}, cmd...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stderr, out)
	}
	rep := e.Report(out)
	got := e2e.ByName(rep)
	want := map[string]string{
		"baseline": "failed", "from-spec": "passed",
		"agent-committed": "passed", "agent-dirty": "failed", "agent-untracked": "passed",
		"agent-fix": "passed", "p-good": "passed", "p-lib": "failed", "single": "failed",
	}
	for n, st := range want {
		if got[n] == nil || got[n].Status != st {
			t.Errorf("%s: %+v, want %s", n, got[n], st)
		}
	}
	if len(rep.Hypotheses) != len(want) {
		var names []string
		for _, h := range rep.Hypotheses {
			names = append(names, h.Name)
		}
		t.Errorf("hypotheses %v, want %d", names, len(want))
	}
	if h := got["agent-untracked"]; h == nil || !strings.Contains(strings.Join(h.Files, ","), "extra.txt") {
		t.Errorf("the untracked file is not part of its worktree's hypothesis: %+v", h)
	}
	// Recorded like any other: apply writes the worktree's work here.
	if b, _ := os.ReadFile(filepath.Join(e.WS, "v.txt")); string(b) != "bad\n" {
		t.Fatalf("the run changed the checkout: %q", b)
	}
	if _, stderr, code := e.Shadow("apply", "-C", e.WS, "@last/agent-untracked"); code != 0 {
		t.Fatalf("apply: exit %d %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(e.WS, "extra.txt")); string(b) != "needed\n" {
		t.Errorf("apply did not write the worktree's untracked file: %q", b)
	}

	// No spec: the sources alone; a ref that does not exist is a usage
	// error naming it.
	if _, stderr, code := e.Shadow("--headless", "-C", e.WS, "--ref", "nosuch", "--", "true"); code != 2 || !strings.Contains(stderr, "--ref nosuch: no such commit") {
		t.Errorf("unknown ref: exit %d %s", code, stderr)
	}
}
