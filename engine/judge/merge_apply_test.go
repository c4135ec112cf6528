package judge

import (
	"github.com/shadow-dev/shadow/engine/checkout"

	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// CommitOriginals reads what the shards' commit held, not the checkout: a
// file changed since (and not committed) is the commit's version, a file
// created since is absent, a symlink is its target; permission bits git
// does not keep are the checkout's, an executable bit it keeps is not.
func TestCommitOriginals(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ws := t.TempDir()
	git := func(args ...string) string {
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-C", ws}, args...)...)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	write := func(p, s string, mode os.FileMode) {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755)
		if err := os.WriteFile(filepath.Join(ws, p), []byte(s), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(ws, p), mode)
	}
	git("init", "-q")
	write("a.go", "committed\n", 0o644)
	write("run.sh", "#!/bin/sh\n", 0o755)
	write("dir/b[1].go", "glob\n", 0o644)
	os.Symlink("a.go", filepath.Join(ws, "link"))
	git("add", "-A")
	git("commit", "-q", "-m", "one")
	commit := CheckoutCommit(ws)
	write("a.go", "changed since\n", 0o664) // group-writable: git keeps no such bit
	write("run.sh", "#!/bin/sh\n", 0o644)   // the executable bit: git keeps it
	write("new.go", "new\n", 0o644)

	h := Hypothesis{Name: "x", Files: []File{{Path: "a.go"}, {Path: "run.sh"}, {Path: "new.go"}, {Path: "dir/b[1].go"}, {Path: "link"}}, Deletes: []string{"dir"}}
	orig, err := CommitOriginals(ws, commit, []Hypothesis{h})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]FileState{
		"a.go":        {Exists: true, Content: []byte("committed\n"), Mode: 0o664},
		"run.sh":      {Exists: true, Content: []byte("#!/bin/sh\n"), Mode: 0o755},
		"new.go":      {},
		"dir/b[1].go": {Exists: true, Content: []byte("glob\n"), Mode: 0o644},
		"link":        {Exists: true, Link: true, Content: []byte("a.go"), Mode: 0o777},
		"dir":         {Exists: true, Dir: true, Mode: 0o755},
	} {
		if got := orig[p]; !checkout.SameState(got, want) {
			t.Errorf("%s: %+v, want %+v", p, got, want)
		}
	}
	// The checkout's a.go is not the commit's: apply refuses it.
	if err := checkout.CheckApply(ws, Hypothesis{Files: []File{{Path: "a.go", Content: []byte("fix\n"), Mode: 0o644}}}, orig); err == nil {
		t.Errorf("a target changed since the commit was not refused")
	}
	if _, err := CommitOriginals(ws, "0123456789012345678901234567890123456789", []Hypothesis{h}); err == nil {
		t.Errorf("a commit the checkout does not have: no error")
	}
}
