package stale

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// $HOME is writable from inside every sandbox, and shadow runs git outside
// it while and after candidates run (staleness, the test-path and ignore
// checks): a candidate's ~/.gitconfig naming a core.fsmonitor program,
// which `git ls-files` and `git check-ignore` would run, must not get it
// run there.
func TestGitRunsNoProgramAGitConfigInHomeNames(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws, home := t.TempDir(), t.TempDir()
	for _, args := range [][]string{{"init", "-q"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", ws, "add", "a.txt").CombinedOutput(); err != nil {
		t.Fatalf("git add: %v %s", err, out)
	}
	marker := filepath.Join(home, "ran")
	hook := filepath.Join(home, "hook.sh")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := []byte("[core]\n\tfsmonitor = " + hook + "\n")
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	os.Unsetenv("GIT_CONFIG_GLOBAL")
	if _, err := GitZ(ws, "ls-files", "-z", "-m"); err != nil {
		t.Fatal(err)
	}
	_ = gitIndexModes(ws, []string{"a.txt"})
	c := newIgnoreChecker(ws, true)
	_ = c.ignored([]string{"a.txt", "b.txt"})
	c.close()
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git ran the program a config in $HOME named (core.fsmonitor) outside the sandbox")
	}
}
