package run

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/shadow-dev/shadow/engine"
)

// writablePaths resolves --writable (over the spec's "writable") to
// absolute, symlink-free directories, refusing (exit 2) what overlay mode
// must not make writable: a path that is not an existing directory, one
// inside the workspace (the workspace's own overlay already holds the
// hypothesis's writes, and an overlay inside it would take them from its
// diff), and one that holds or lies in shadow's own directories (records,
// journals, upper dirs: an overlay there would let the command build a
// state dir of its own in their place). Relative paths are taken from the
// caller's directory.
func writablePaths(o Options, spec *engine.Spec, ws string, shadowDirs []string) ([]string, error) {
	paths := o.Writable
	if len(paths) == 0 {
		paths = spec.Writable
	}
	var out []string
	for _, p := range paths {
		if p == "" {
			return nil, Usage("--writable: empty path")
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(o.Cwd, abs)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, Usage("--writable %s: %v (give an existing directory)", p, err)
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			return nil, Usage("--writable %s: not a directory", p)
		}
		if realWS, err := filepath.EvalSymlinks(ws); err == nil && inside(real, realWS) {
			return nil, Usage("--writable %s: inside the workspace %s, which every hypothesis already writes in its own shadow", p, ws)
		}
		for _, d := range shadowDirs {
			rd := d
			if r, err := filepath.EvalSymlinks(d); err == nil {
				rd = r
			}
			if inside(rd, real) || inside(real, rd) {
				return nil, Usage("--writable %s: holds shadow's directory %s (its records and upper dirs), which no hypothesis may write; name a directory beside it", p, d)
			}
		}
		out = append(out, real)
	}
	return out, nil
}

// inside reports whether p is dir or lies below it.
func inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
