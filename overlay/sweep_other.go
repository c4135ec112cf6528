//go:build !linux

package overlay

// Sweep: overlay sandboxes exist only on Linux, so there is nothing to
// sweep elsewhere.
func Sweep(bases ...string) []Swept { return nil }
