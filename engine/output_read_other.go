//go:build !linux

package engine

import "syscall"

// growPipe: only Linux resizes a pipe (F_SETPIPE_SZ); elsewhere the copy
// reads as the output comes, without waiting.
func growPipe(syscall.RawConn, int) bool { return false }
