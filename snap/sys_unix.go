//go:build unix

package snap

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// pidExists reports whether a process with this pid exists (kill(2) with
// signal 0 checks without sending; EPERM means it exists but is another
// user's).
func pidExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// flock takes an advisory lock on f (flock(2)), shared or exclusive,
// waiting for it; it is released when f is closed.
func flock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// ownedByMe says why fi is not owned by this process's effective user, or
// "".
func ownedByMe(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	if int(st.Uid) != os.Geteuid() {
		return fmt.Sprintf("owned by uid %d, not %d", st.Uid, os.Geteuid())
	}
	return ""
}
