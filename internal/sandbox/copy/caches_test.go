//go:build linux || darwin

package copy

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestGCCaches: gc removes every slot cache an older shadow left, keeps
// one a running job holds (its shared lock), finishes a removal an
// earlier gc left half-done, and leaves files alone.
func TestGCCaches(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(p, "go-build"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "go-build", "entry"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	left, held, half := mk("0123456789ab-1"), mk("0123456789ab-2"), mk("0123456789ab-3"+gcSuffix+"99")
	if err := os.WriteFile(filepath.Join(dir, "note"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(held, cacheLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	r := GCCaches(dir)
	if r.Removed[left] == "" || r.Removed[half] == "" || len(r.Removed) != 2 {
		t.Errorf("removed: %v", r.Removed)
	}
	if r.Kept[held] == "" {
		t.Errorf("the held cache was not kept: %v", r.Kept)
	}
	for _, p := range []string{left, half} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	if _, err := os.Stat(filepath.Join(held, "go-build", "entry")); err != nil {
		t.Errorf("the held cache lost its entry: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "note")); err != nil {
		t.Errorf("a file was removed: %v", err)
	}
	f.Close()
	if r := GCCaches(dir); r.Removed[held] == "" {
		t.Errorf("once released, the cache was not removed: %v %v", r.Removed, r.Kept)
	}
}
