package sandbox

import (
	"path/filepath"
	"strings"

	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

// Base is where a workspace's upper dirs (and --freeze copies) go: the
// state dir's sandboxes, unless that lies inside the workspace (a
// workspace at $HOME), where overlayfs would refuse it as an upper dir
// over its own lower dir.
func Base(store snap.Store, ws string) string {
	base := store.SandboxDir()
	if inside(base, ws) {
		return overlay.TmpSandboxes()
	}
	return base
}

// ShadowDirs are the directories shadow writes that no hypothesis may see:
// the resolved state dir (records, journals, sandboxes) and
// $TMPDIR/shadow-UID (upper dirs when the state dir cannot hold them,
// --no-record logs). The overlay sandbox masks them; copy mode leaves them
// out of its copies.
func ShadowDirs(store snap.Store) []string {
	return []string{store.Root, overlay.TmpRoot()}
}

// inside reports whether p is dir or lies below it.
func inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && !strings.HasPrefix(rel, "..")
}
