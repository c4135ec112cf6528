//go:build !unix

package stale

import "os"

// inode: no inode numbers here; size, mtime and content hashes remain.
func inode(fi os.FileInfo) uint64 { return 0 }
