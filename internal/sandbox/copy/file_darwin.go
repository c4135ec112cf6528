package copy

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// copyFile clones src to dst with clonefile(2), which on APFS shares every
// block (copy-on-write) and copies none; where it is refused (HFS+, another
// volume) it copies the bytes. dst must not exist; CLONE_NOFOLLOW clones a
// symlink as itself, never what it points to.
func copyFile(src, dst string, fi fs.FileInfo, noClone *atomic.Bool) (cloned bool, err error) {
	if !noClone.Load() {
		err := unix.Clonefile(src, dst, unix.CLONE_NOFOLLOW)
		if err == nil {
			return true, nil
		}
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) || errors.Is(err, unix.EEXIST) {
			return false, &fs.PathError{Op: "clonefile", Path: src, Err: err}
		}
		// ENOTSUP: not APFS; EXDEV: another volume. Neither changes for
		// the rest of this copy.
		noClone.Store(true)
	}
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

// keepAttrs gives p the owner (root only), mode and times of fi.
func keepAttrs(p string, fi fs.FileInfo, root bool) {
	sys, _ := fi.Sys().(*syscall.Stat_t)
	if root && sys != nil {
		_ = os.Lchown(p, int(sys.Uid), int(sys.Gid))
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		_ = os.Chmod(p, fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
	}
	if sys != nil {
		ts := []unix.Timespec{unix.NsecToTimespec(sys.Atimespec.Nano()), unix.NsecToTimespec(sys.Mtimespec.Nano())}
		_ = unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW)
	}
}

func devOf(fi fs.FileInfo) (uint64, bool) {
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(sys.Dev), true
}
