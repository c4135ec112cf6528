package freeze

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// The frozen copy keeps contents, modes, symlinks and the mtimes of files
// and directories (cargo and make compare them), copies only what it is
// given, and skips what is not a file or a symlink.
func TestFreezeKeepsWhatBuildToolsCompare(t *testing.T) {
	ws, dst := t.TempDir(), filepath.Join(t.TempDir(), "frozen")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(ws, "src", "deep"), 0o750))
	must(os.WriteFile(filepath.Join(ws, "src", "deep", "lib.rs"), []byte("fn f() {}\n"), 0o640))
	must(os.WriteFile(filepath.Join(ws, "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	must(os.WriteFile(filepath.Join(ws, "left-out.txt"), []byte("x"), 0o644))
	must(os.Symlink("src/deep/lib.rs", filepath.Join(ws, "link")))
	old := time.Date(2020, 1, 2, 3, 4, 5, 6000, time.UTC)
	for _, p := range []string{"src/deep/lib.rs", "run.sh", "src/deep", "src"} {
		must(os.Chtimes(filepath.Join(ws, p), old, old))
	}
	copied, st, err := Freeze(ws, dst, []string{"src/deep/lib.rs", "run.sh", "link", "missing.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if len(copied) != 3 || !copied["link"] || copied["missing.txt"] || st.Files != 2 || st.Links != 1 {
		t.Errorf("copied %v, stats %+v", copied, st)
	}
	if _, err := os.Lstat(filepath.Join(dst, "left-out.txt")); err == nil {
		t.Error("a path not listed was copied")
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "src", "deep", "lib.rs")); string(b) != "fn f() {}\n" {
		t.Errorf("content %q", b)
	}
	if l, _ := os.Readlink(filepath.Join(dst, "link")); l != "src/deep/lib.rs" {
		t.Errorf("symlink -> %q", l)
	}
	for p, mode := range map[string]os.FileMode{"src/deep/lib.rs": 0o640, "run.sh": 0o755, "src/deep": 0o750} {
		fi, err := os.Stat(filepath.Join(dst, p))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), mode)
		}
		want := old
		if runtime.GOOS != "linux" {
			want = old.Truncate(time.Microsecond)
		}
		if !fi.ModTime().Equal(want) {
			t.Errorf("%s: mtime %v, want %v", p, fi.ModTime(), want)
		}
	}
}

// CleanFrozen removes the copies of runs whose process is gone and keeps
// a live one's.
func TestCleanFrozenKeepsALiveRunsCopy(t *testing.T) {
	base := t.TempDir()
	live := FrozenDir(base, "run1")
	dead := filepath.Join(base, "frozen-run2-999999999")
	for _, d := range []string{live, dead} {
		if err := os.MkdirAll(filepath.Join(d, "src"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if n := CleanFrozen(base); n != 1 {
		t.Errorf("removed %d, want 1", n)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the live run's copy was removed: %v", err)
	}
	if _, err := os.Stat(dead); err == nil {
		t.Error("the dead run's copy was kept")
	}
}
