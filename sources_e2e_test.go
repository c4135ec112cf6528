//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitIn runs git in dir with a fixed identity, failing the test on error.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", "-C", dir}, args...)...)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

// issue 24: hypotheses from where agents keep them. A real repository
// with three real worktrees (a committed fix on a branch, uncommitted
// work, an untracked new file plus an edit), a branch given with --ref,
// patch files given one by one and as a directory, mixed with a spec:
// each is one hypothesis named after its source, ranked, recorded and
// applicable like any other.
func TestHypothesesFromPatchesRefsAndWorktrees(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	e := newEnv(t)
	e.write("v.txt", "bad\n", 0o644)
	e.write("lib.txt", "one\ntwo\n", 0o644)
	gitIn(t, e.ws, "init", "-q")
	gitIn(t, e.ws, "add", ".")
	gitIn(t, e.ws, "commit", "-qm", "start")

	// A branch with a committed fix, in its own worktree.
	wts := t.TempDir()
	committed := filepath.Join(wts, "agent-committed")
	gitIn(t, e.ws, "worktree", "add", "-q", "-b", "agent/fix", committed)
	os.WriteFile(filepath.Join(committed, "v.txt"), []byte("good\n"), 0o644)
	gitIn(t, committed, "commit", "-qam", "fix v")
	// Uncommitted work that does not fix it.
	dirty := filepath.Join(wts, "agent-dirty")
	gitIn(t, e.ws, "worktree", "add", "-q", "-b", "agent/dirty", dirty)
	os.WriteFile(filepath.Join(dirty, "v.txt"), []byte("worse\n"), 0o644)
	// An untracked new file and an uncommitted fix.
	untracked := filepath.Join(wts, "agent-untracked")
	gitIn(t, e.ws, "worktree", "add", "-q", "-b", "agent/new", untracked)
	os.WriteFile(filepath.Join(untracked, "v.txt"), []byte("good\n"), 0o644)
	os.WriteFile(filepath.Join(untracked, "extra.txt"), []byte("needed\n"), 0o644)

	patches := filepath.Join(e.dir, "patches")
	os.MkdirAll(patches, 0o755)
	os.WriteFile(filepath.Join(patches, "p-good.diff"), []byte("--- a/v.txt\n+++ b/v.txt\n@@ -1 +1 @@\n-bad\n+good\n"), 0o644)
	os.WriteFile(filepath.Join(patches, "p-lib.patch"), []byte("--- a/lib.txt\n+++ b/lib.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"), 0o644)
	single := filepath.Join(e.dir, "single.diff")
	os.WriteFile(single, []byte("--- a/v.txt\n+++ b/v.txt\n@@ -1 +1 @@\n-bad\n+nope\n"), 0o644)
	spec := e.spec(map[string]any{"hypotheses": []any{map[string]any{"name": "from-spec", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}}}})

	// The checkout (and HEAD) are the workspace: the state and cwd are
	// elsewhere. -C points at it.
	cmd := []string{"sh", "-c", `test "$(cat v.txt)" = good && { test ! -e extra.txt || test "$(cat extra.txt)" = needed; }`}
	out, stderr, code := e.shadow(append([]string{"--json", "--baseline", "-C", e.ws, "--worktrees", "--ref", "agent/fix", "--patch", patches, "--patch", single, spec, "--"}, cmd...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stderr, out)
	}
	rep := e.report(out)
	got := byName(rep)
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
	if b, _ := os.ReadFile(filepath.Join(e.ws, "v.txt")); string(b) != "bad\n" {
		t.Fatalf("the run changed the checkout: %q", b)
	}
	if _, stderr, code := e.shadow("apply", "-C", e.ws, "@last/agent-untracked"); code != 0 {
		t.Fatalf("apply: exit %d %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "extra.txt")); string(b) != "needed\n" {
		t.Errorf("apply did not write the worktree's untracked file: %q", b)
	}

	// No spec: the sources alone; a ref that does not exist is a usage
	// error naming it.
	if _, stderr, code := e.shadow("--headless", "-C", e.ws, "--ref", "nosuch", "--", "true"); code != 2 || !strings.Contains(stderr, "--ref nosuch: no such commit") {
		t.Errorf("unknown ref: exit %d %s", code, stderr)
	}
}
