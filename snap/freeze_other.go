//go:build !linux

package snap

import (
	"os"
)

// cloneFile: no block sharing here; copyFile copies the bytes.
func cloneFile(dst, src *os.File) bool { return false }

// keepAttrs gives p the mode and modification time of fi (owners and
// nanosecond access times are Linux-only here).
func keepAttrs(p string, fi os.FileInfo, root bool) {
	if fi.Mode()&os.ModeSymlink == 0 {
		_ = os.Chmod(p, fi.Mode()&os.ModePerm)
		_ = os.Chtimes(p, fi.ModTime(), fi.ModTime())
	}
}
