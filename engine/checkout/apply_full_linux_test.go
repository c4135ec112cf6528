package checkout

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/shadow-dev/shadow/engine/spec"
)

// apply onto a full disk: a 64 KiB tmpfs holds the first file of the set
// but not the second. Nothing of the set is written (the first target
// keeps its old content, no temporary file or directory is left), and the
// error names the file and says so. Before, the first file was replaced
// and the apply failed part-way.
func TestApplyOntoAFullDiskWritesNothing(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root (CI runs the engine's tests as root)")
	}
	ws := t.TempDir()
	if err := syscall.Mount("tmpfs", ws, "tmpfs", 0, "size=64k"); err != nil {
		t.Fatalf("mount a small tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(ws, syscall.MNT_DETACH) })
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("old a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := spec.Hypothesis{Name: "big", Files: []spec.File{
		file("a.txt", strings.Repeat("a", 16<<10)),
		file("new/dir/b.bin", strings.Repeat("b", 256<<10)),
		file("c.txt", "c\n"),
	}}
	orig := ReadOriginals(ws, []spec.Hypothesis{h})
	applied, err := ApplyHypothesis(ws, h, orig)
	var ne *NotWrittenError
	if !errors.As(err, &ne) || ne.Path != "new/dir/b.bin" || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("apply onto a full disk: %v (%T)", err, err)
	}
	if len(applied) != 0 {
		t.Errorf("applied %v", applied)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "old a\n" {
		t.Errorf("a.txt was replaced: %d bytes", len(b))
	}
	left, _ := os.ReadDir(ws)
	if len(left) != 1 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("left in the checkout: %v, want only a.txt", names)
	}
}
