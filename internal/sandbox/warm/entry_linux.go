package warm

import (
	"io/fs"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// isWhiteout reports an overlayfs whiteout: a character device 0/0
// (Documentation/filesystems/overlayfs.rst, "whiteouts and opaque
// directories"), or, where the upper filesystem cannot hold one, a
// zero-size file carrying an overlay "whiteout" xattr (Linux 6.7+).
func isWhiteout(p string, fi fs.FileInfo) bool {
	if fi.Mode()&fs.ModeCharDevice != 0 {
		st, ok := fi.Sys().(*syscall.Stat_t)
		return ok && st.Rdev == 0
	}
	if fi.Mode().IsRegular() && fi.Size() == 0 {
		return hasXattr(p, "overlay.whiteout")
	}
	return false
}

// isOpaque reports a directory the overlay marked opaque (the command
// removed it and made it again: nothing below it in the lower shows).
func isOpaque(p string) bool { return hasXattr(p, "overlay.opaque") }

// hasXattr reports an overlay xattr named suffix under either namespace
// overlayfs uses: trusted.* (root) or user.* (userxattr, in a user
// namespace).
func hasXattr(p, suffix string) bool {
	for _, n := range overlayXattrs(p) {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

// overlayXattrs lists the overlay xattrs of p (not following a symlink).
func overlayXattrs(p string) []string {
	buf := make([]byte, 4096)
	n, err := unix.Llistxattr(p, buf)
	if err != nil || n <= 0 {
		return nil
	}
	var out []string
	for _, name := range strings.Split(string(buf[:n]), "\x00") {
		if strings.HasPrefix(name, "trusted.overlay.") || strings.HasPrefix(name, "user.overlay.") {
			out = append(out, name)
		}
	}
	return out
}

// stripOverlayXattrs removes every overlay xattr of p (a file moved or
// linked out of an upper dir keeps its "origin" and the like, which a
// lower layer must not carry); false when one stays.
func stripOverlayXattrs(p string) bool {
	for _, n := range overlayXattrs(p) {
		_ = unix.Lremovexattr(p, n)
	}
	return len(overlayXattrs(p)) == 0
}

// syncFS flushes the filesystem holding dir (syncfs(2)); for an overlay
// upper mounted volatile, a write-back error since the mount is only seen
// here, and data not yet written would be lost in a crash.
func syncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}

// nlink is a file's hard-link count.
func nlink(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
