package judge

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// cargo's test targets (collect.go): the integration tests in the
// package's tests/ directory, and every [[test]] target of its Cargo.toml
// with its path (default tests/NAME.rs; the Cargo Book, "Cargo Targets").
// Unit tests live in #[cfg(test)] modules of source files, which are code
// as much as tests: they are not named. Read, not run.

func collectCargo(workspace, subdir string) *testCollection {
	b, err := os.ReadFile(filepath.Join(workspace, filepath.FromSlash(subdir), "Cargo.toml"))
	if err != nil {
		return nil
	}
	c := &testCollection{runner: "cargo", via: "config", files: map[string]bool{}}
	if g := newRunnerGlob(subdir, "tests/**"); g != nil {
		c.globs = append(c.globs, g)
	}
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		t := strings.TrimSpace(stripTomlComment(l))
		if strings.HasPrefix(t, "[") {
			in = t == "[[test]]"
			continue
		}
		k, v, ok := strings.Cut(t, "=")
		if !in || !ok || strings.TrimSpace(k) != "path" {
			continue
		}
		m := tomlString.FindStringSubmatch(v)
		if m == nil {
			continue
		}
		if p, ok := relTo(subdir, m[1]+m[2]); ok && p != "" {
			c.files[p] = true
			// A target's directory (tests/it/main.rs) holds its modules.
			if path.Base(p) == "main.rs" {
				if g := newRunnerGlob(path.Dir(p), "**"); g != nil {
					c.globs = append(c.globs, g)
				}
			}
		}
	}
	return c
}
