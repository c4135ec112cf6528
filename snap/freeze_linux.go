package snap

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// copyFile copies src to dst, sharing blocks (FICLONE) where the filesystem
// can (btrfs, xfs), else byte by byte.
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
	if unix.IoctlFileClone(int(out.Fd()), int(in.Fd())) == nil {
		return true, out.Close()
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return false, err
	}
	return false, out.Close()
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
