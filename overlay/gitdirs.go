package overlay

import (
	"os"
	"path/filepath"
	"strings"
)

// outsideGitDirs lists the git directories a git command run in the
// workspace would write that lie outside it, so they can be shadowed too:
//   - in a worktree, .git is a file "gitdir: <main>/.git/worktrees/NAME",
//     and that dir's "commondir" names the main repository's .git, which
//     holds the refs, objects and reflogs (gitrepository-layout(5));
//   - a workspace that is a subdirectory of a repository finds .git above
//     it;
//   - GIT_DIR and GIT_COMMON_DIR in the command's environment name them
//     directly.
//
// The same resolution as `git rev-parse --git-dir --git-common-dir`, done
// by hand: no git process per hypothesis.
func outsideGitDirs(ws string, env []string) []string {
	var dirs []string
	gitDir := ""
	for d := ws; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		if fi, err := os.Lstat(p); err == nil {
			if fi.IsDir() {
				gitDir = p
			} else if b, err := os.ReadFile(p); err == nil {
				if s, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
					gitDir = absFrom(d, strings.TrimSpace(s))
				}
			}
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if v, ok := lookupEnv(env, "GIT_DIR"); ok && v != "" {
		gitDir = absFrom(ws, v)
	}
	if gitDir != "" {
		dirs = append(dirs, gitDir)
		if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
			dirs = append(dirs, absFrom(gitDir, strings.TrimSpace(string(b))))
		}
	}
	if v, ok := lookupEnv(env, "GIT_COMMON_DIR"); ok && v != "" {
		dirs = append(dirs, absFrom(ws, v))
	}
	// Keep existing directories outside the workspace, outermost only.
	var out []string
	for _, d := range dirs {
		d = resolve(d)
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() || within(d, ws) {
			continue
		}
		out = append(out, d)
	}
	var top []string
	for i, d := range out {
		inner := false
		for j, o := range out {
			if i != j && within(d, o) && (d != o || j < i) {
				inner = true
			}
		}
		if !inner {
			top = append(top, d)
		}
	}
	return top
}

func absFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}
