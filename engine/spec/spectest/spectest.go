// Package spectest lays out workspaces and loads specs for the tests of
// the packages that start from a resolved spec (engine, engine/judge).
// engine/spec's own tests keep their copy: importing this package from
// inside package spec would be an import cycle.
package spectest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine/spec"
)

// MakeTree lays out a workspace: a key ending in "/" is a directory, a
// value starting with "@" a symlink to the rest, anything else a 0644 file.
func MakeTree(t testing.TB, tree map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	keys := make([]string, 0, len(tree))
	for k := range tree {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := filepath.Join(ws, filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		v := tree[k]
		var err error
		switch {
		case strings.HasSuffix(k, "/"):
			err = os.MkdirAll(p, 0o755)
		case strings.HasPrefix(v, "@"):
			err = os.Symlink(v[1:], p)
		default:
			err = os.WriteFile(p, []byte(v), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// Load writes doc as spec.json in a fresh spec directory (with a source
// file hyp/plus.rs and a directory hyp/dir) and loads and resolves it.
func Load(t testing.TB, doc, ws string, bases spec.BaseResolver) ([]spec.Hypothesis, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "hyp", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hyp", "plus.rs"), []byte("a + b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, specDir, err := spec.LoadSpec(path, nil)
	if err != nil {
		return nil, err
	}
	if specDir != dir {
		t.Fatalf("specDir = %q, want %q", specDir, dir)
	}
	return spec.Resolve(sp, specDir, ws, bases)
}
