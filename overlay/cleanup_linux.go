package overlay

import (
	"io/fs"
	"os"
	"path/filepath"
)

// RemoveTree removes dir and everything below it, also directories the
// command or overlayfs left without write or search permission (overlayfs
// leaves work/work as mode 000; Go's module cache is read-only). Whiteouts
// are character devices owned by us and unlink like files.
func RemoveTree(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	// WalkDir calls fn on a directory before reading it, so making it
	// accessible there lets the walk descend into it.
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
