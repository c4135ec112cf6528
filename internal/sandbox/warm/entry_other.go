//go:build unix && !linux

package warm

import (
	"io/fs"
	"syscall"
)

// Only Linux has overlayfs uppers; elsewhere (copy mode on macOS) the
// layer is stacked but never fed, and these are never asked a real
// question.

func isWhiteout(p string, fi fs.FileInfo) bool { return false }
func isOpaque(p string) bool                   { return false }
func stripOverlayXattrs(p string) bool         { return true }

func syncFS(dir string) error {
	syscall.Sync()
	return nil
}

func nlink(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
