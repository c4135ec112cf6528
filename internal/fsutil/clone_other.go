//go:build !linux

package fsutil

import (
	"io"
	"io/fs"
	"os"
	"sync/atomic"
)

// CopyFile copies src to dst, which must not exist: no FICLONE here, so
// the bytes (copy mode on macOS clones with clonefile(2) itself).
func CopyFile(src, dst string, fi fs.FileInfo, noClone *atomic.Bool) (cloned bool, err error) {
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

// KeepAttrs gives p the mode and modification time of fi (owners and
// nanosecond access times are Linux-only here).
func KeepAttrs(p string, fi fs.FileInfo, root bool) {
	if fi.Mode()&fs.ModeSymlink == 0 {
		_ = os.Chmod(p, fi.Mode()&fs.ModePerm)
		_ = os.Chtimes(p, fi.ModTime(), fi.ModTime())
	}
}
