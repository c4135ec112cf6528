//go:build linux || darwin

package copy

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestGCCaches: gc removes a slot's caches unused for CacheMaxAge and
// those of a workspace that is gone, keeps fresh ones and one a job
// holds (even when old), finishes a removal an earlier gc left half-done,
// and leaves what is not a slot cache alone.
func TestGCCaches(t *testing.T) {
	dir := t.TempDir()
	live, gone := t.TempDir(), filepath.Join(t.TempDir(), "gone")
	lk, gk := slotKey(live), slotKey(gone)
	old := time.Now().Add(-CacheMaxAge - time.Hour)
	mk := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(p, "go-build", "ab"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "go-build", "ab", "x-d"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	oldOne := mk(lk+"-0", old)
	fresh := mk(lk+"-1", time.Now())
	ofGone := mk(gk+"-0", time.Now())
	held := mk(lk+"-2", old)
	release, err := useCache(held)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(held, old, old); err != nil { // as if the job had run for a week
		t.Fatal(err)
	}
	half := mk(lk+"-3"+gcSuffix+"123", old)
	other := mk("not-a-slot", old)

	r := GCCaches(dir, []string{live, gone}, CacheMaxAge)
	for _, p := range []string{oldOne, ofGone, half} {
		if _, err := os.Stat(p); err == nil || r.Removed[p] == "" {
			t.Errorf("%s not removed (%v)", p, r.Removed)
		}
	}
	for _, p := range []string{fresh, held, other} {
		if _, err := os.Stat(filepath.Join(p, "go-build", "ab", "x-d")); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
	if r.Kept[held] == "" || len(r.Errors) != 0 {
		t.Errorf("kept %v, errors %v", r.Kept, r.Errors)
	}
	release()
	// Released, the old cache goes; a job that starts afterwards gets a
	// fresh one at the same path.
	r = GCCaches(dir, nil, CacheMaxAge)
	if r.Removed[held] == "" {
		t.Errorf("the released old cache was kept: %v", r)
	}
	release, err = useCache(held)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if fi, err := os.Stat(held); err != nil || time.Since(fi.ModTime()) > time.Minute {
		t.Errorf("a new job's cache: %v", err)
	}
}
