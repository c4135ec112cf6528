package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/shadow-dev/shadow/internal/sandbox/copy"
	"github.com/shadow-dev/shadow/snap"
)

// sweepSlotCaches removes copy mode's per-slot caches (the sealed
// commands' GOCACHE, XDG_CACHE_HOME and npm cache, kept from run to run)
// unused for copy.CacheMaxAge or whose workspace, one shadow recorded, is
// gone; a cache a run holds is kept.
func sweepSlotCaches(store snap.Store, wsDirs []string) (out []Swept) {
	var workspaces []string
	for _, d := range wsDirs {
		var info struct {
			Workspace string `json:"workspace"`
		}
		if b, err := os.ReadFile(filepath.Join(d, "workspace.json")); err == nil && json.Unmarshal(b, &info) == nil && filepath.IsAbs(info.Workspace) {
			workspaces = append(workspaces, info.Workspace)
		}
	}
	r := copy.GCCaches(copyCaches(store), workspaces, copy.CacheMaxAge)
	for _, dir := range sortedKeys(r.Removed) {
		out = append(out, Swept{Line: fmt.Sprintf("removed %s (a copy slot's caches: %s)", dir, r.Removed[dir])})
	}
	for _, dir := range sortedKeys(r.Kept) {
		out = append(out, Swept{Line: fmt.Sprintf("kept %s: %s", dir, r.Kept[dir])})
	}
	for _, err := range r.Errors {
		out = append(out, Swept{Err: err})
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
