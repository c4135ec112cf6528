package cli

import (
	"fmt"
	"os"
	"path/filepath"
)

// demoDir is where `shadow demo` writes its module: the same directory
// every time (TMPDIR/shadow-demo-UID/N, the first one no other demo holds),
// so that the workspace's home layer (the Go build cache its baseline
// filled: internal/sandbox/warm) is found by the next demo and only the
// first one pays for a cold build. A directory another user made, or one
// not private, is never used: a fresh temporary one is, as before.
func demoDir() (dir string, done func(), err error) {
	parent := filepath.Join(os.TempDir(), fmt.Sprintf("shadow-demo-%d", os.Getuid()))
	if err := os.Mkdir(parent, 0o700); err == nil || os.IsExist(err) {
		if fi, err := os.Lstat(parent); err == nil && fi.IsDir() && fi.Mode().Perm() == 0o700 && ownedByMe(fi) {
			for n := 0; n < 8; n++ {
				d := filepath.Join(parent, fmt.Sprint(n))
				rel, ok := lockDemo(d + ".lock")
				if !ok {
					continue
				}
				_ = os.RemoveAll(d)
				if err := os.Mkdir(d, 0o700); err != nil {
					rel()
					continue
				}
				// Kept after the demo (the next one clears it): `shadow gc` removes
				// the layers of workspaces that are gone.
				return d, rel, nil
			}
		}
	}
	d, err := os.MkdirTemp("", "shadow-demo-")
	if err != nil {
		return "", nil, err
	}
	return d, func() { os.RemoveAll(d) }, nil
}
