package run

import (
	"path/filepath"
	"strings"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// commandFound refuses (exit 2, before anything runs) a bare command name
// that is in no directory of the effective PATH (the last PATH= of env,
// the spec's over shadow's own), rather than letting every hypothesis fail
// with "not found". It stays silent where an edit could still create the
// command: a name with a slash (relative to the command's directory in
// the shadow), or a PATH with a relative entry or one inside the
// workspace.
func commandFound(name string, env []string, ws string) error {
	if name == "" || strings.Contains(name, "/") {
		return nil
	}
	pathEnv := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" || !filepath.IsAbs(d) {
			return nil
		}
		if rel, err := filepath.Rel(ws, d); err == nil && !strings.HasPrefix(rel, "..") {
			return nil
		}
	}
	if _, err := fsutil.LookPath(name, pathEnv, ws); err != nil {
		return Usage("command not found: %q is in no directory of PATH; nothing ran (give its path, or set PATH in the spec's \"env\")", name)
	}
	return nil
}
