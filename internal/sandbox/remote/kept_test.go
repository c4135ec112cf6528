package remote

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

// The --keep key comes over the wire: only RUN/HYP, each one plain name,
// may become a directory under the node's kept root.
func TestKeptDirRefusesEscapes(t *testing.T) {
	root := "/state/remote/kept"
	if got, err := keptDir(root, "20261201-1/fix"); err != nil || got != root+"/20261201-1/fix" {
		t.Errorf("plain key: %q %v", got, err)
	}
	for _, k := range []string{"", "run", "run/", "/hyp", "../x", "run/..", "run/a/b", "./hyp", "run/a\x00"} {
		if got, err := keptDir(root, k); err == nil {
			t.Errorf("key %q accepted as %s", k, got)
		}
	}
}

func TestPruneKeptRemovesOnlyOldRuns(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"old/h", "new/h"} {
		os.MkdirAll(filepath.Join(root, d), 0o700)
	}
	past := time.Now().Add(-31 * 24 * time.Hour)
	os.Chtimes(filepath.Join(root, "old"), past, past)
	pruneKept(root, keptFor)
	if _, err := os.Stat(filepath.Join(root, "old")); err == nil {
		t.Error("a kept run older than 30 days is still there")
	}
	if _, err := os.Stat(filepath.Join(root, "new", "h")); err != nil {
		t.Errorf("a recent kept run was removed: %v", err)
	}
}

// A node that runs in place cannot isolate: a job asking for it is refused
// there, never run without it.
func TestIsolationRefusedOnAnInPlaceNode(t *testing.T) {
	for _, c := range []struct {
		mode     engine.Mode
		net, tmp string
		refused  bool
	}{
		{"inplace", "isolated", "shared", true},
		{"inplace", "host", "private", true},
		{"inplace", "host", "shared", false},
		{"overlay", "isolated", "private", false},
		{"copy", "host", "private", false},
		{"copy", "isolated", "shared", true},
	} {
		err := isolationRefused(c.mode, &wireJob{Net: c.net, Tmp: c.tmp})
		if (err != nil) != c.refused {
			t.Errorf("%s net %s tmp %s: %v", c.mode, c.net, c.tmp, err)
		}
	}
}
