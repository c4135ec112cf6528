package fsutil

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// CopyFile copies src to dst, which must not exist (O_EXCL: never write
// through a path that appeared meanwhile). It first asks the filesystem to
// share src's blocks (FICLONE, ioctl_ficlone(2): btrfs, XFS with reflink,
// bcachefs), which copies no data; once that is refused for a tree copy
// (noClone, shared by its calls; nil: ask every time) it copies the bytes
// with io.Copy, which between two files uses copy_file_range(2) (an
// in-kernel copy, itself a reflink on some filesystems) and falls back to
// read/write where that is refused. Copy mode's copies and --freeze's copy
// both copy through it: one FICLONE path.
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
	if (noClone == nil || !noClone.Load()) && fi.Size() > 0 {
		err := unix.IoctlFileClone(int(out.Fd()), int(in.Fd()))
		if err == nil {
			return true, out.Close()
		}
		// EOPNOTSUPP/ENOTTY: the filesystem cannot; EXDEV: another
		// filesystem; EINVAL: not on this pair. None will change for the
		// rest of this copy.
		if noClone != nil && (errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOTTY) || errors.Is(err, unix.EXDEV) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS)) {
			noClone.Store(true)
		}
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return false, err
	}
	return false, out.Close()
}

// KeepAttrs gives p the owner (root only), mode and times (nanoseconds,
// atime too) of fi, so tools that compare mtimes (cargo's fingerprints,
// make) see the same tree.
func KeepAttrs(p string, fi fs.FileInfo, root bool) {
	sys, _ := fi.Sys().(*syscall.Stat_t)
	if root && sys != nil {
		_ = os.Lchown(p, int(sys.Uid), int(sys.Gid))
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		// After chown, which clears set-id bits.
		_ = os.Chmod(p, fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
	}
	if sys != nil {
		ts := []unix.Timespec{unix.NsecToTimespec(sys.Atim.Nano()), unix.NsecToTimespec(sys.Mtim.Nano())}
		_ = unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW)
	}
}
