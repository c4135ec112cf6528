//go:build linux

package copy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/test/e2e"
)

// TestE2EGCRemovesOldSlotCaches: a sealed copy-mode run leaves its copy
// slot's caches (slot-caches/ in the state dir) for the next run; once
// unused for a week, `shadow gc` removes them and says so, and a fresh
// one is kept.
func TestE2EGCRemovesOldSlotCaches(t *testing.T) {
	e2e.Parallel(t)
	e := newSealEnv(t, sealCase{how: "seccomp"})
	e.write("a.txt", "original\n")
	spec := e.spec("spec.json", map[string]any{"hypotheses": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}})
	if out, stderr, code := e.run("--headless", "--mode", "copy", "-j", "2", spec, "--", "sh", "-c", "echo x > $GOCACHE/entry"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	caches, _ := filepath.Glob(filepath.Join(e.state, "shadow", "slot-caches", "*"))
	if len(caches) != 2 {
		t.Fatalf("slot caches after a run of 2 slots: %v", caches)
	}
	old := time.Now().Add(-8 * 24 * time.Hour)
	if err := os.Chtimes(caches[0], old, old); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := e.run("gc")
	if code != 0 {
		t.Fatalf("gc: exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(caches[0]); err == nil || !strings.Contains(out, caches[0]) || !strings.Contains(out, "unused for 8 days") {
		t.Errorf("the week-old slot cache %s: %v\n%s", caches[0], err, out)
	}
	if _, err := os.Stat(filepath.Join(caches[1], "go-build", "entry")); err != nil {
		t.Errorf("the fresh slot cache was removed: %v\n%s", err, out)
	}
}
