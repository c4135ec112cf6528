// Package demo holds the built-in example `shadow demo` runs: a small Go
// module whose Add subtracts, with tests, and five hypotheses (baseline,
// the fix, a wrong fix, a fix with a larger diff, one that breaks Sub).
package demo

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

//go:embed fixture
var fixture embed.FS

// Files are stored with a .txt suffix so the go tool neither builds the
// fixture as part of shadow nor refuses to embed a nested module.
const storedSuffix = ".txt"

// Materialize writes the fixture into dir: the workspace into
// dir/workspace and the spec (with its hypothesis files, kept outside the
// workspace so go test does not build them) into dir/spec. It returns the
// workspace, the spec's path and the command the spec names.
func Materialize(dir string) (workspace, spec string, command []string, err error) {
	err = fs.WalkDir(fixture, "fixture", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, "fixture"), "/")
		target := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(rel, storedSuffix)))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := fixture.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		return "", "", nil, fmt.Errorf("write demo workspace in %s: %w", dir, err)
	}
	workspace = filepath.Join(dir, "workspace")
	spec = filepath.Join(dir, "spec", "spec.json")
	var s struct {
		Command []string `json:"command"`
	}
	b, err := os.ReadFile(spec)
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	return workspace, spec, s.Command, err
}
