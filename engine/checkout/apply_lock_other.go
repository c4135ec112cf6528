//go:build !unix

package checkout

// lockApply: no flock(2) here; each target is still compared immediately
// before its rename.
func lockApply(string) (func(), error) { return func() {}, nil }
