package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/shadow-dev/shadow/internal/sandbox/copy"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

// gcCopies removes the copy-mode copies of crashed runs: in the state
// dir, in $TMPDIR, and beside each workspace shadow has recorded (where
// copies go when neither is on the workspace's filesystem). A copy whose
// shadow or helper still runs is kept. It reports whether all went well.
func gcCopies(s Streams, store snap.Store, wsDirs []string) bool {
	seen := map[string]bool{}
	var bases []string
	add := func(list []string) {
		for _, b := range list {
			if !seen[b] {
				seen[b] = true
				bases = append(bases, b)
			}
		}
	}
	add([]string{store.SandboxDir(), copy.TmpCopies()})
	for _, d := range wsDirs {
		var info struct {
			Workspace string `json:"workspace"`
		}
		if b, err := os.ReadFile(filepath.Join(d, "workspace.json")); err == nil && json.Unmarshal(b, &info) == nil && filepath.IsAbs(info.Workspace) {
			add(copy.Bases(store.SandboxDir(), info.Workspace))
		}
	}
	ok := true
	for _, base := range bases {
		r := copy.GC(base, overlay.SweepMinAge)
		for dir, why := range r.Kept {
			fmt.Fprintf(s.Out, "kept %s: %s\n", dir, why)
		}
		for _, dir := range r.Removed {
			fmt.Fprintf(s.Out, "removed %s\n", dir)
		}
		for _, err := range r.Errors {
			fmt.Fprintln(s.Err, "shadow gc:", err)
			ok = false
		}
		if filepath.Base(base) == copy.SiblingDir {
			_ = os.Remove(base) // only if empty: nothing left beside the checkout
		}
	}
	return ok
}
