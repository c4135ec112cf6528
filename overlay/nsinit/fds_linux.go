package nsinit

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloseInheritedFDs marks every descriptor above stderr close-on-exec, so
// none of what this process inherited (a shell's `exec 7<"$WS"`, a socket,
// an O_PATH handle) reaches a command it starts. Go's ForkExec has no hook
// between fork and exec and passes every descriptor that lacks FD_CLOEXEC,
// so this must run before anything is started: main calls it first, and
// the sandbox init calls it again for itself. Descriptors Go opens are
// already close-on-exec; the ones exec.Cmd passes (ExtraFiles) are dup2'd
// in the child and unaffected.
func CloseInheritedFDs() {
	// close_range(2) with CLOSE_RANGE_CLOEXEC (Linux 5.11) does it in one
	// call; older kernels return ENOSYS or EINVAL.
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return
	}
	MarkCloexecByWalk()
}

// MarkCloexecByWalk (exported for a test) sets FD_CLOEXEC on each descriptor listed in
// /proc/self/fd. The directory's own descriptor is listed too; setting the
// flag on it is harmless.
func MarkCloexecByWalk() {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		// Without /proc: try every descriptor below the soft limit.
		var rl unix.Rlimit
		max := 4096
		if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && rl.Cur < 1<<20 {
			max = int(rl.Cur)
		}
		for fd := 3; fd < max; fd++ {
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
		return
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, n := range names {
		fd, err := strconv.Atoi(n)
		if err != nil || fd < 3 {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && !errors.Is(err, unix.EBADF) {
			continue
		}
	}
}
