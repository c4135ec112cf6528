package run

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// ResolveWorkspace finds the workspace root (dir, else the git top-level
// holding cwd, else cwd) and the command's directory inside it,
// '/'-separated ("" at the root).
func ResolveWorkspace(dir, cwd string) (ws, subdir string, err error) {
	switch {
	case dir != "":
		ws, err = filepath.Abs(dir)
		if err != nil {
			return "", "", err
		}
	default:
		out, gerr := fsutil.Command("git", "-C", cwd, "rev-parse", "--show-toplevel").Output()
		if gerr == nil && len(bytes.TrimSpace(out)) > 0 {
			ws = string(bytes.TrimSpace(out))
		} else {
			ws = cwd
		}
	}
	if ws, err = filepath.EvalSymlinks(ws); err != nil {
		return "", "", fmt.Errorf("workspace %s: %v", dir, err)
	}
	if fi, err := os.Stat(ws); err != nil || !fi.IsDir() {
		return "", "", fmt.Errorf("workspace %s is not a directory", ws)
	}
	if ws == "/" {
		return "", "", errors.New("the workspace cannot be / : pass -C with a project directory")
	}
	real, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		real = cwd
	}
	if rel, err := filepath.Rel(ws, real); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		subdir = filepath.ToSlash(rel)
	}
	return ws, subdir, nil
}

// ProbeWorkspace is the workspace a run from cwd would use, for the probe
// (cwd itself when none resolves: the probe still answers).
func ProbeWorkspace(cwd string) string {
	ws, _, err := ResolveWorkspace("", cwd)
	if err != nil {
		return cwd
	}
	return ws
}
