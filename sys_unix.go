//go:build unix

package main

import (
	"io/fs"
	"syscall"
)

// devOf is the device a file lives on: gc never removes across a mount.
func devOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev)
	}
	return 0
}

// isWhiteout reports an overlayfs whiteout: a character device 0/0 in an
// upper dir, which records a deletion.
func isWhiteout(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && fi.Mode()&fs.ModeCharDevice != 0 && st.Rdev == 0
}
