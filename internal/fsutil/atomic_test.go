package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for i, c := range []struct {
		data string
		mode os.FileMode
		sync bool
	}{{"one", 0o644, false}, {"two, longer", 0o755, true}, {"", 0o600, true}} {
		if err := WriteFileAtomic(p, []byte(c.data), c.mode, c.sync); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		fi, _ := os.Stat(p)
		if err != nil || string(b) != c.data || fi.Mode().Perm() != c.mode {
			t.Errorf("write %d: %q %v %v", i, b, fi.Mode(), err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	// A failed write leaves the old content and no temporary file.
	if err := WriteFileAtomic(filepath.Join(dir, "no", "such"), []byte("x"), 0o644, true); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "d"), []byte("x"), 0o644, false); err == nil {
		t.Error("rename over a directory succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("after failures: %v", ents)
	}
}
