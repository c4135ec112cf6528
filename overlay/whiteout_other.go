//go:build !linux

package overlay

import "io/fs"

// isWhiteout: no overlayfs, no whiteouts.
func isWhiteout(fi fs.FileInfo) bool { return false }
