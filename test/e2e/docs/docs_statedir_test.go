package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestStateDirIsLookedUpOnce: only snap.DefaultStore finds the state dir
// (docs/architecture.md, snap): a second lookup could disagree with it
// (a relative XDG_STATE_HOME, an unset HOME) and put records, probe cache
// and sandboxes where the others do not look.
func TestStateDirIsLookedUpOnce(t *testing.T) {
	lookup := regexp.MustCompile(`Getenv\("XDG_STATE_HOME"\)|LookupEnv\("XDG_STATE_HOME"\)`)
	found := 0
	filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		rel := filepath.ToSlash(p)
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, "test/") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		for range lookup.FindAllIndex(b, -1) {
			if rel == "snap/store.go" {
				found++
				continue
			}
			t.Errorf("%s looks up the state dir itself: use snap.DefaultStore", rel)
		}
		return nil
	})
	if found != 1 {
		t.Errorf("snap/store.go looks XDG_STATE_HOME up %d times, want once (in defaultRoot): has the lookup moved?", found)
	}
}
