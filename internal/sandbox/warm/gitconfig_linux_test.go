package warm

import (
	"os"
	"path/filepath"
	"testing"
)

// $HOME is writable from inside every sandbox (docs/internals.md: Limits), and the
// update runs git outside it, as shadow, at the end of the run: a
// candidate that planted a global git config naming a program
// (core.fsmonitor, which `git ls-files` and `git check-ignore` run) must
// not get it run there, where it could write the checkout.
func TestUpdateRunsNoProgramAGitConfigInHomeNames(t *testing.T) {
	ws, root, up := repo(t), t.TempDir(), t.TempDir()
	home := t.TempDir()
	marker := filepath.Join(home, "ran")
	hook := write(t, home, "hook.sh", "#!/bin/sh\ntouch "+marker+"\n")
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "[core]\n\tfsmonitor = " + hook + "\n"
	write(t, home, ".gitconfig", cfg)
	write(t, home, ".config/git/config", cfg)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	os.Unsetenv("GIT_CONFIG_GLOBAL")
	write(t, up, "target/debug/app", "binary")
	if _, err := Update(root, ws, up, "run1"); err != nil {
		t.Fatal(err)
	}
	l, err := Acquire(root, ws)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git ran the program a config in $HOME named (core.fsmonitor) outside the sandbox")
	}
}
