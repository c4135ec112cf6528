//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// A hostile candidate writes a repository under another name than .git
// (vendor/lib/{HEAD,config,objects/,refs/}, core.worktree=.., a
// core.fsmonitor program): the next `git status` there would run it as
// the user. It passes the tests, is suspicious with the path named, does
// not win, and no apply writes it without force: `--apply
// --allow-suspicious`, `shadow apply` (and --dry-run), MCP's shadow_apply;
// `shadow apply --force` and MCP's force: true do.
func TestE2EEmbeddedGitDirIsSuspiciousAndNeverApplied(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("v.txt", "bad\n", 0o644)
	evil := []any{
		e2e.Edit("v.txt", "good\n"),
		e2e.Edit("vendor/lib/HEAD", "ref: refs/heads/main\n"),
		e2e.Edit("vendor/lib/config", "[core]\n\tworktree = ..\n\tfsmonitor = touch /tmp/shadow-gitdir-ran\n"),
		e2e.Edit("vendor/lib/objects/info/packs", "\n"),
		e2e.Edit("vendor/lib/refs/heads/main", "0000000000000000000000000000000000000000\n"),
	}
	spec := e.SpecFile("gitdir", map[string]any{"hypotheses": []any{
		map[string]any{"name": "evil", "edits": evil},
	}})
	out, stderr, code := e.Shadow("--headless", "--json", "--apply", "--allow-suspicious", "-C", e.WS, spec, "--", "sh", "-c", e2e.CheckScript)
	rep := e.Report(out)
	r := e2e.ByName(rep)["evil"]
	if r.Status != "passed" || r.Suspicious == nil || !strings.Contains(*r.Suspicious, "vendor/lib/") || !strings.Contains(*r.Suspicious, "core.fsmonitor") {
		t.Fatalf("exit %d: suspicious %v\n%s%s", code, r.Suspicious, out, stderr)
	}
	if !strings.Contains(rep.ApplyError, "vendor/lib/") || len(rep.Applied) != 0 {
		t.Errorf("--apply --allow-suspicious: apply error %q, applied %v", rep.ApplyError, rep.Applied)
	}
	gone := func(when string) {
		t.Helper()
		if _, err := os.Lstat(filepath.Join(e.WS, "vendor")); !os.IsNotExist(err) {
			t.Fatalf("%s wrote vendor/: %v", when, err)
		}
		if b, _ := os.ReadFile(filepath.Join(e.WS, "v.txt")); string(b) != "bad\n" {
			t.Fatalf("%s wrote v.txt: %q", when, b)
		}
	}
	gone("--apply")
	for _, args := range [][]string{{"apply", "-C", e.WS, "@last/evil"}, {"apply", "--dry-run", "-C", e.WS, "@last/evil"}} {
		if _, stderr, code := e.Shadow(args...); code != 1 || !strings.Contains(stderr, "vendor/lib/") {
			t.Errorf("shadow %v: exit %d %s", args, code, stderr)
		}
		gone(strings.Join(args[:2], " "))
	}
	m := e2e.NewMCPEnv(t, e, e.WS)
	res := m.MustCall("shadow_apply", map[string]any{"ref": "@last/evil"})
	if !res.IsError || !strings.Contains(e2e.Text(res), "vendor/lib/") || !strings.Contains(e2e.Text(res), "force: true") {
		t.Errorf("MCP apply: error %v %s", res.IsError, e2e.Text(res))
	}
	gone("MCP shadow_apply")
	// Forced, both layers of refusal give way: the recorded suspicion and
	// the check made again on the checkout.
	if out, stderr, code := e.Shadow("apply", "--force", "-C", e.WS, "@last/evil"); code != 0 || !strings.Contains(out, "vendor/lib/config") {
		t.Fatalf("apply --force: exit %d %s%s", code, out, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(e.WS, "vendor", "lib", "HEAD")); string(b) != "ref: refs/heads/main\n" {
		t.Errorf("forced apply did not write the candidate: %q", b)
	}
}
