//go:build unix

package warm

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// flock takes an flock(2) on path (created if missing): the kernel drops it
// when the process dies, however it dies. With nonBlock, a lock held by
// someone else is errBusy.
func flock(path string, exclusive, nonBlock bool) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	if nonBlock {
		how |= unix.LOCK_NB
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, errBusy
		}
		return nil, err
	}
	return func() {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}

var errBusy = errors.New("in use by another shadow run")
