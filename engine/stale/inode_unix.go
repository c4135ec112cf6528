//go:build unix

package stale

import (
	"os"
	"syscall"
)

// inode is the file's inode number: an editor that saves by writing a new
// file and renaming it over the old one changes it even when size and
// mtime match.
func inode(fi os.FileInfo) uint64 {
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino)
	}
	return 0
}
