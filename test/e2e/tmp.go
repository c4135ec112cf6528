//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
)

// SharedTmpIfLinked is "--tmp shared" when the workspace's node_modules
// links to the npm fixture under /tmp (a clone there, as CI's and the
// unprivileged pass's are): a sandbox's /tmp is otherwise a fresh tmpfs,
// in which the link's target does not exist.
func SharedTmpIfLinked(ws string) []string {
	if t, err := os.Readlink(filepath.Join(ws, "node_modules")); err == nil && strings.HasPrefix(t, filepath.Clean(os.TempDir())+"/") {
		return []string{"--tmp", "shared"}
	}
	return nil
}
