package overlay

import (
	"fmt"
	"os"
	"path/filepath"
)

// TmpRoot is shadow's directory under $TMPDIR, $TMPDIR/shadow-UID: upper
// dirs when the state dir cannot hold them (TmpSandboxes), and anything
// else shadow keeps in $TMPDIR (--no-record logs). Like the state dir it
// must be masked in every sandbox.
func TmpRoot() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("shadow-%d", os.Getuid()))
}
