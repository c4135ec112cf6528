package copy

import (
	"io/fs"
	"sync/atomic"
	"syscall"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// copyFile copies src to dst, which must not exist, sharing blocks
// (FICLONE) until the filesystem refuses (fsutil.CopyFile: the one
// FICLONE path, --freeze's copy uses it too).
func copyFile(src, dst string, fi fs.FileInfo, noClone *atomic.Bool) (cloned bool, err error) {
	return fsutil.CopyFile(src, dst, fi, noClone)
}

// keepAttrs gives p the owner (root only), mode and times of fi.
func keepAttrs(p string, fi fs.FileInfo, root bool) { fsutil.KeepAttrs(p, fi, root) }

// devOf is the device a path's filesystem is on.
func devOf(fi fs.FileInfo) (uint64, bool) {
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(sys.Dev), true
}
