//go:build linux

package copy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// TestE2EGCRemovesOldSlotCaches: a sealed copy-mode run keeps no cache of
// its own past its jobs (what a candidate wrote to its GOCACHE goes with
// it: docs/modes.md "The home layer"), and `shadow gc` removes the slot
// caches an older shadow kept across runs, saying so.
func TestE2EGCRemovesOldSlotCaches(t *testing.T) {
	e2e.Parallel(t)
	e := newSealEnv(t, sealCase{how: "seccomp"})
	e.write("a.txt", "original\n")
	spec := e.spec("spec.json", map[string]any{"hypotheses": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}})
	if out, stderr, code := e.run("--headless", "--mode", "copy", "-j", "2", spec, "--", "sh", "-c", "echo x > $GOCACHE/entry"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	slots := filepath.Join(e.state, "shadow", "slot-caches")
	if caches, _ := filepath.Glob(filepath.Join(slots, "*")); len(caches) != 0 {
		t.Fatalf("a run kept slot caches (a candidate's writes): %v", caches)
	}
	left := filepath.Join(slots, "0123456789ab-1")
	if err := os.MkdirAll(filepath.Join(left, "go-build"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(left, "go-build", "entry"), []byte("forged"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.own()
	out, stderr, code := e.run("gc")
	if code != 0 {
		t.Fatalf("gc: exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(left); err == nil || !strings.Contains(out, left) || !strings.Contains(out, "no longer used") {
		t.Errorf("the old slot cache %s: %v\n%s", left, err, out)
	}
}
