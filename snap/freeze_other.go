//go:build !linux

package snap

import (
	"io"
	"os"
)

// copyFile copies src to dst byte by byte.
func copyFile(src, dst string, fi os.FileInfo) (cloned bool, err error) {
	in, err := os.Open(src)
	if err != nil {
		return false, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return false, err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return false, err
	}
	return false, out.Close()
}

// keepAttrs gives p the mode and modification time of fi (owners and
// nanosecond access times are Linux-only here).
func keepAttrs(p string, fi os.FileInfo, root bool) {
	if fi.Mode()&os.ModeSymlink == 0 {
		_ = os.Chmod(p, fi.Mode()&os.ModePerm)
		_ = os.Chtimes(p, fi.ModTime(), fi.ModTime())
	}
}
