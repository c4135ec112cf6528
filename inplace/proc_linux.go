package inplace

import (
	"errors"

	"golang.org/x/sys/unix"
)

// mountOf is (st_dev, mount id) of p without following a symlink; the
// mount id (statx STATX_MNT_ID, Linux >= 5.8) is 0 where unknown. Two
// paths can be renamed into each other only on the same mount.
func mountOf(p string) (dev uint64, mnt uint64, err error) {
	var sx unix.Statx_t
	err = unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BASIC_STATS|unix.STATX_MNT_ID, &sx)
	if err == nil {
		dev = unix.Mkdev(sx.Dev_major, sx.Dev_minor)
		if sx.Mask&unix.STATX_MNT_ID != 0 {
			mnt = sx.Mnt_id
		}
		return dev, mnt, nil
	}
	if !errors.Is(err, unix.ENOSYS) {
		return 0, 0, err
	}
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return 0, 0, err
	}
	return uint64(st.Dev), 0, nil
}

// syncFS makes everything written under dir durable with one syncfs(2)
// of its filesystem: thousands of journaled originals cost one sync, not
// one fsync each.
func syncFS(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Syncfs(fd)
}
