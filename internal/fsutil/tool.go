package fsutil

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Programs shadow runs itself (git for staleness, ignores and the warm
// layer; rsync and ssh for --remote) run outside every sandbox, as the
// user, and as root with every capability. They are never looked up in a
// directory a hypothesis could have written: with ~/.local/bin (Debian's
// default ~/.profile puts it first), ~/go/bin, ~/.cargo/bin or pyenv's
// shims early in PATH, a hypothesis that dropped a `git` there would have
// had shadow run it after the hypotheses and at the start of the next
// run. bubblewrap's and Codex's sandboxes never run a program from a
// path the sandboxed code could write; shadow's tools follow the same
// rule: each is resolved once per process from the PATH entries that are
// trusted (TrustedDir), and run by that absolute path from then on.
//
// When a tool is only in an untrusted directory it is refused, naming
// where it was found and how to fix it: running it anyway would be the
// very hole this closes, and git, rsync and ssh are in /usr/bin wherever
// a package manager installed them.

// Tools are resolved together, the first time any is asked for: shadow's
// first git call is the staleness check at the start of a run, before
// any hypothesis ran.
var Tools = []string{"git", "rsync", "ssh"}

var (
	toolsOnce sync.Once
	toolPaths map[string]toolPath
	toolMu    sync.Mutex
)

type toolPath struct {
	path string
	err  error
}

// Tool returns the absolute path of the program name, resolved once from
// the trusted directories of PATH. A name with a slash is the user's own
// explicit choice (SHADOW_SSH_COMMAND=/opt/ssh/bin/ssh) and is returned
// as it is.
func Tool(name string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	toolsOnce.Do(func() {
		toolPaths = map[string]toolPath{}
		for _, t := range Tools {
			p, err := resolveTool(t, os.Getenv("PATH"))
			toolPaths[t] = toolPath{p, err}
		}
	})
	toolMu.Lock()
	defer toolMu.Unlock()
	tp, ok := toolPaths[name]
	if !ok {
		p, err := resolveTool(name, os.Getenv("PATH"))
		tp = toolPath{p, err}
		toolPaths[name] = tp
	}
	return tp.path, tp.err
}

// Command is exec.Command for a tool shadow runs itself: by the absolute
// path Tool resolved; when there is none, the command's Start reports why
// (exec.Cmd.Err).
func Command(name string, args ...string) *exec.Cmd {
	p, err := Tool(name)
	if err != nil {
		cmd := exec.Command(name, args...)
		cmd.Err = err
		return cmd
	}
	return exec.Command(p, args...)
}

// CommandContext is Command with a context (exec.CommandContext).
func CommandContext(ctx context.Context, name string, args ...string) *exec.Cmd {
	p, err := Tool(name)
	if err != nil {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Err = err
		return cmd
	}
	return exec.CommandContext(ctx, p, args...)
}

// resolveTool searches pathEnv's absolute, trusted entries for name.
func resolveTool(name, pathEnv string) (string, error) {
	var untrusted []string
	for _, d := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(d) {
			continue // "" and relative entries name the current directory
		}
		p := filepath.Join(d, name)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
			continue
		}
		if ok, why := TrustedPath(p); !ok {
			untrusted = append(untrusted, p+" ("+why+")")
			continue
		}
		return p, nil
	}
	if len(untrusted) > 0 {
		return "", fmt.Errorf("%s is only in directories a sandboxed command could write: %s; shadow runs its own tools outside every sandbox, so it refuses these: install %s system-wide (e.g. apt-get install %s) so that a root-owned directory in PATH holds it", name, strings.Join(untrusted, ", "), name, name)
	}
	return "", fmt.Errorf("%s: not found in PATH (%s)", name, pathEnv)
}

// TrustedPath reports whether p (a program) and every directory above it
// can be changed by root only: each is owned by uid 0, none is writable
// by its group or by others, and none is a symlink to somewhere else that
// is not (p is resolved first). A directory under $HOME is never trusted,
// even root's own: sandboxes write $HOME. why says what failed.
func TrustedPath(p string) (bool, string) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false, err.Error()
	}
	if h, err := os.UserHomeDir(); err == nil && h != "/" && h != "" {
		if hr, err := filepath.EvalSymlinks(h); err == nil {
			h = hr
		}
		if rel, err := filepath.Rel(h, real); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return false, "under $HOME " + h
		}
	}
	for cur := real; ; cur = filepath.Dir(cur) {
		if ok, why := rootOnly(cur); !ok {
			return false, why
		}
		if cur == "/" || cur == "." {
			return true, ""
		}
	}
}
