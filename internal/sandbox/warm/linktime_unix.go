//go:build unix

package warm

import (
	"time"

	"golang.org/x/sys/unix"
)

// setLinkTime gives the symlink itself (not its target) the mtime t, as
// make and cargo see it: utimensat(2) with AT_SYMLINK_NOFOLLOW.
func setLinkTime(link string, t time.Time) {
	ts := []unix.Timespec{unix.NsecToTimespec(t.UnixNano()), unix.NsecToTimespec(t.UnixNano())}
	_ = unix.UtimesNanoAt(unix.AT_FDCWD, link, ts, unix.AT_SYMLINK_NOFOLLOW)
}
