//go:build linux || darwin

package copy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A copy lives at its workspace's lowest free slot, so the next job (and
// the next run) works at the same path and path-keyed caches (Go's build
// cache, cargo's fingerprints) hit; jobs at once never share a slot, and
// a slot a crash left behind is skipped, never reused with its contents.
func TestCopiesReuseTheirSlotPath(t *testing.T) {
	ws, _ := fixture(t)
	base := filepath.Join(t.TempDir(), "copies")
	sb := New(base, Options{})
	pwd := func() string {
		var out syncBuf
		if o, err := sb.Run(context.Background(), job(ws, &out, `pwd -P`)); err != nil || o.ExitCode != 0 {
			t.Fatalf("job: %v exit %d: %s", err, o.ExitCode, out.String())
		}
		return strings.TrimSpace(out.String())
	}
	first, second := pwd(), pwd()
	if first != second {
		t.Errorf("one job after another ran at %s, then %s: want the same slot", first, second)
	}
	assertNoCopies(t, base)

	// Two at once: two slots.
	var wg sync.WaitGroup
	paths := make([]string, 2)
	gate := filepath.Join(t.TempDir(), "gate")
	for i := range paths {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var out syncBuf
			script := `echo x >> ` + gate + `; n=0; while [ "$(wc -l < ` + gate + `)" -lt 2 ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done; pwd -P`
			if o, err := sb.Run(context.Background(), job(ws, &out, script)); err != nil || o.ExitCode != 0 {
				t.Errorf("job %d: %v exit %d: %s", i, err, o.ExitCode, out.String())
			}
			paths[i] = strings.TrimSpace(out.String())
		}(i)
	}
	wg.Wait()
	if paths[0] == paths[1] {
		t.Errorf("two jobs at once shared %s", paths[0])
	}

	// A leftover in slot 0 (a crash) is not entered.
	slot0 := filepath.Dir(first)
	must(t, os.Mkdir(slot0, 0o700))
	must(t, os.WriteFile(filepath.Join(slot0, "planted"), []byte("x"), 0o600))
	if p := pwd(); filepath.Dir(p) == slot0 {
		t.Errorf("a job ran in the leftover slot %s", slot0)
	}
	if _, err := os.Stat(filepath.Join(slot0, "planted")); err != nil {
		t.Errorf("the leftover was touched: %v", err)
	}
}
