package sandbox

import (
	"fmt"
	"sort"

	"github.com/shadow-dev/shadow/internal/sandbox/copy"
	"github.com/shadow-dev/shadow/snap"
)

// sweepSlotCaches removes what older shadows left of copy mode's per-slot
// caches (each job's caches are its own now: copy.GCCaches); a cache a
// running older shadow holds is kept.
func sweepSlotCaches(store snap.Store) (out []Swept) {
	r := copy.GCCaches(copyCaches(store))
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
