package snap

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// cloneFile shares src's blocks with dst (FICLONE, ioctl_ficlone(2)) where
// the filesystem can (btrfs, xfs): a frozen copy then costs no data.
func cloneFile(dst, src *os.File) bool {
	return unix.IoctlFileClone(int(dst.Fd()), int(src.Fd())) == nil
}

// keepAttrs gives p the owner (root only), mode and times of fi.
func keepAttrs(p string, fi os.FileInfo, root bool) {
	sys, _ := fi.Sys().(*syscall.Stat_t)
	if root && sys != nil {
		_ = os.Lchown(p, int(sys.Uid), int(sys.Gid))
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		// After chown, which clears set-id bits.
		_ = os.Chmod(p, fi.Mode()&(os.ModePerm|os.ModeSetuid|os.ModeSetgid|os.ModeSticky))
	}
	if sys != nil {
		ts := []unix.Timespec{unix.NsecToTimespec(sys.Atim.Nano()), unix.NsecToTimespec(sys.Mtim.Nano())}
		_ = unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW)
	}
}
