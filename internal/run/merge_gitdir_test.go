package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/engine/judge"
)

// merge --apply writes through the same refusal as every apply: a winner
// that writes a repository under another name is not written, even with
// --force (which is for a HEAD that moved, not for what git would obey).
func TestMergeApplyNeverWritesAGitDir(t *testing.T) {
	ws := t.TempDir()
	h := engine.Hypothesis{Name: "evil", Files: []engine.File{
		{Path: "vendor/lib/HEAD", Content: []byte("ref: refs/heads/main\n"), Mode: 0o644},
		{Path: "vendor/lib/config", Content: []byte("[core]\n\tfsmonitor = ./x\n"), Mode: 0o644},
		{Path: "vendor/lib/objects/info/packs", Mode: 0o644},
		{Path: "vendor/lib/refs/heads/main", Mode: 0o644},
	}}
	name := "evil"
	rep := &engine.Report{Winner: &name}
	orig := engine.ReadOriginals(ws, []engine.Hypothesis{h})
	for _, force := range []bool{false, true} {
		applied, why := applyWinner(ws, rep, []engine.Hypothesis{h}, nil, orig, judge.CheckoutCommit(ws), MergeApply{WithTests: true, Force: force})
		if len(applied) != 0 || !strings.Contains(why, "vendor/lib/") {
			t.Errorf("force %v: applied %v, %q", force, applied, why)
		}
		if _, err := os.Lstat(filepath.Join(ws, "vendor")); !os.IsNotExist(err) {
			t.Fatalf("force %v: merge --apply wrote vendor/: %v", force, err)
		}
	}
}
