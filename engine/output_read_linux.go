package engine

import "syscall"

// fSetPipeSz is F_SETPIPE_SZ (fcntl(2), <linux/fcntl.h>), which package
// syscall does not name.
const fSetPipeSz = 1031

// growPipe asks for a pipe buffer of size bytes; false when the pipe
// keeps a smaller one (/proc/sys/fs/pipe-max-size, the user's pipe
// pages), or rc is not a pipe.
func growPipe(rc syscall.RawConn, size int) bool {
	ok := false
	_ = rc.Control(func(fd uintptr) {
		got, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSz, uintptr(size))
		ok = errno == 0 && int(got) >= size
	})
	return ok
}
