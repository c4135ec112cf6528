//go:build !unix

package snap

import "os"

// pidExists: without kill(2), assume a recorded process may still run, so
// nothing it could be using is removed.
func pidExists(pid int) bool { return true }

// flock: no advisory locks here; records are still written atomically.
func flock(f *os.File, exclusive bool) error { return nil }

// ownedByMe: no Unix owners here.
func ownedByMe(fi os.FileInfo) string { return "" }
