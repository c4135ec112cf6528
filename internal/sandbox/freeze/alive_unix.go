//go:build unix

package freeze

import (
	"errors"
	"syscall"
)

// alive reports whether a process with this pid exists (kill(2) with
// signal 0 checks without sending; EPERM means it exists but is another
// user's).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
