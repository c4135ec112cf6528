//go:build linux || darwin

package copy

import (
	"fmt"
	"os"
	"path/filepath"
)

// SiblingDir is the copies directory used beside a workspace whose
// filesystem holds neither the state dir nor $TMPDIR.
const SiblingDir = ".shadow-copies"

// Bases lists, best first, where copies of workspace may be made: the
// state dir's sandboxes dir, $TMPDIR/shadow-UID/copies, and a
// .shadow-copies directory beside the workspace. gc looks in all of them.
func Bases(stateSandboxes, workspace string) []string {
	return []string{stateSandboxes, TmpCopies(), filepath.Join(filepath.Dir(workspace), SiblingDir)}
}

// TmpCopies is $TMPDIR/shadow-UID/copies.
func TmpCopies() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("shadow-%d", os.Getuid()), "copies")
}

// Base picks where the copies of workspace go: the first of Bases that
// lies outside the workspace, on the workspace's own filesystem (a reflink
// or clonefile cannot cross filesystems, and a copy within one is also
// cheaper for the kernel) and can be created. The sibling directory is the
// last resort because it is the one place sure to be on the same
// filesystem, but it is visible beside the user's checkout. With none on
// the same filesystem it is the state dir: a plain copy works anywhere.
func Base(stateSandboxes, workspace string) string {
	wfi, err := os.Stat(workspace)
	if err != nil {
		return stateSandboxes
	}
	wdev, ok := devOf(wfi)
	if !ok {
		return stateSandboxes
	}
	for _, b := range Bases(stateSandboxes, workspace) {
		if inside(b, workspace) || b == filepath.Dir(workspace) {
			continue
		}
		if dev, ok := nearestDev(b); !ok || dev != wdev {
			continue
		}
		if os.MkdirAll(b, 0o700) == nil {
			return b
		}
	}
	return stateSandboxes
}

// nearestDev is the device of p, or of its nearest existing ancestor.
func nearestDev(p string) (uint64, bool) {
	for {
		if fi, err := os.Stat(p); err == nil {
			return devOf(fi)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return 0, false
		}
		p = parent
	}
}

// Usable says why no copy can be made under base for workspace, or nil:
// base must lie outside the workspace and take a new directory.
func Usable(base, workspace string) error {
	if err := checkOutside(base, workspace); err != nil {
		return err
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return fmt.Errorf("create the copies directory: %w", err)
	}
	d, err := os.MkdirTemp(base, "probe-copy-")
	if err != nil {
		return fmt.Errorf("create a copy in %s: %w", base, err)
	}
	return os.Remove(d)
}
