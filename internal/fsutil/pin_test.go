//go:build unix

package fsutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hypothesis (same uid, copy or in-place mode) renames the directory
// above the state dir and makes a fresh one in its place: the pin says
// so, naming it.
func TestPinSeesRenamedAncestor(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(root, ".local", "state", "shadow")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	p := PinDirs(state)
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	parent := filepath.Join(root, ".local", "state")
	if err := os.Rename(parent, parent+".x"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	err := p.Check()
	if err == nil || !strings.Contains(err.Error(), parent) {
		t.Fatalf("want the replaced %s named, got %v", parent, err)
	}
	// A symlink in its place is a replacement too.
	os.RemoveAll(parent)
	if err := os.Symlink(parent+".x", parent); err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err == nil {
		t.Fatal("a symlink put in place of a pinned directory went unseen")
	}
}
