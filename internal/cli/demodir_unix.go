//go:build unix

package cli

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// lockDemo holds an flock(2) on path until release (dropped by the kernel
// however the demo ends).
func lockDemo(path string) (release func(), ok bool) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, false
	}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
