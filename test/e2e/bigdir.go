//go:build linux

package e2e

import (
	"fmt"
	"path/filepath"
)

// BigDir writes n files in nested directories under rel of the workspace.
func (e *Env) BigDir(rel string, n int) {
	e.T.Helper()
	for i := 0; i < n; i++ {
		e.Write(filepath.Join(rel, fmt.Sprintf("d%02d/f%05d.txt", i%41, i)), fmt.Sprintf("file %d\n", i), 0o644)
	}
}
