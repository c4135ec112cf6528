package checkout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine/spec"
)

// A config variable that runs a program is judged on what the candidate
// adds: the checkout's own stays its own; a plain fix stays clean.
func TestGitRisksJudgeWhatTheCandidateAdds(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "tools.gitconfig"), []byte("[diff \"lock\"]\n\ttextconv = ./tools/lockdiff\n"), 0o644)
	os.MkdirAll(filepath.Join(ws, "manual"), 0o755)
	clean := spec.Hypothesis{Name: "ok", Files: []spec.File{
		file("tools.gitconfig", "[diff \"lock\"]\n\ttextconv = ./tools/lockdiff\n[core]\n\tautocrlf = false\n"),
		file("manual/HEAD", "what HEAD means\n"),
		file(".gitattributes", "*.lock diff=lock\n"),
	}}
	if rs := GitRisks(ws, clean, ReadOriginals(ws, []spec.Hypothesis{clean})); len(rs) != 0 {
		t.Errorf("clean change: %v", rs)
	}
	bad := spec.Hypothesis{Name: "bad", Files: []spec.File{file("tools.gitconfig", "[diff \"lock\"]\n\ttextconv = ./tools/lockdiff\n[core]\n\tpager = ./evil\n")}}
	if rs := GitRisks(ws, bad, ReadOriginals(ws, []spec.Hypothesis{bad})); len(rs) != 1 || !strings.Contains(rs[0].Why, "core.pager") {
		t.Errorf("added core.pager: %v", rs)
	}
	// The checkout's own core.hooksPath makes its directory a hooks dir.
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n\thooksPath = scripts/hooks\n"), 0o644)
	hook := spec.Hypothesis{Name: "hook", Files: []spec.File{file("scripts/hooks/pre-push", "#!/bin/sh\n")}}
	if rs := GitRisks(ws, hook, nil); len(rs) != 1 || rs[0].Path != "scripts/hooks/pre-push" {
		t.Errorf("hook under core.hooksPath: %v", rs)
	}
}
