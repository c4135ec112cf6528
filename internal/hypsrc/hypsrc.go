// Package hypsrc makes hypotheses from where agents and worktree managers
// (claude-squad, Conductor, vibe-kanban, `claude -w`) already keep their
// candidates: patch files, branches, and the repository's other
// worktrees. The CLI's --patch, --ref and --worktrees, shadow init and MCP
// shadow_run's patches, refs and worktrees share it.
package hypsrc

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/fsutil"
	"github.com/shadow-dev/shadow/internal/run"
)

func specErr(format string, a ...any) error { return run.Usage(format, a...) }

// Sources are hypotheses named outside a spec. Each becomes a spec
// hypothesis with a "patch" (and, for a worktree's untracked files,
// edits), so it is validated, run, recorded and applied like any other.
type Sources struct {
	Patches   []string // --patch FILE|DIR (a directory: its *.diff and *.patch)
	Refs      []string // --ref REF: its change since the merge base with HEAD
	Worktrees bool     // --worktrees: every other worktree of the repository
}

// Any says some source is given.
func (h Sources) Any() bool { return len(h.Patches) > 0 || len(h.Refs) > 0 || h.Worktrees }

// Hypotheses builds the hypotheses, for the workspace ws (the checkout
// the patches apply to), relative paths from cwd. Names come from the
// file, the ref or the worktree directory, made valid and unique against
// taken (lower-cased names; the new ones are added). Errors are
// *run.Error usage refusals naming the flag.
func (h Sources) Hypotheses(ws, cwd string, taken map[string]bool) ([]engine.SpecHyp, error) {
	var out []engine.SpecHyp
	add := func(name string, hyp engine.SpecHyp) {
		hyp.Name = uniqueName(name, taken)
		out = append(out, hyp)
	}
	for _, p := range h.Patches {
		files, err := patchFiles(p, cwd)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, specErr("--patch %s: %v", f, err)
			}
			if len(bytes.TrimSpace(b)) == 0 {
				return nil, specErr("--patch %s is empty: a patch is a unified diff, as git diff prints it", f)
			}
			base := filepath.Base(f)
			add(strings.TrimSuffix(strings.TrimSuffix(base, ".diff"), ".patch"), engine.SpecHyp{Patch: string(b)})
		}
	}
	if len(h.Refs) > 0 || h.Worktrees {
		if _, err := gitOut(ws, "rev-parse", "--verify", "-q", "HEAD"); err != nil {
			return nil, specErr("--ref and --worktrees need a git checkout with a commit: %s has none (%v)", ws, err)
		}
	}
	for _, ref := range h.Refs {
		hyp, err := refHypothesis(ws, ref)
		if err != nil {
			return nil, err
		}
		add(ref, hyp)
	}
	if h.Worktrees {
		wts, err := otherWorktrees(ws)
		if err != nil {
			return nil, err
		}
		if len(wts) == 0 {
			return nil, specErr("--worktrees: %s has no other worktree (git worktree list shows only this one; git worktree add makes one)", ws)
		}
		for _, wt := range wts {
			hyp, err := worktreeHypothesis(ws, wt)
			if err != nil {
				return nil, err
			}
			add(filepath.Base(wt), hyp)
		}
	}
	return out, nil
}

// patchFiles: a file as given, or a directory's *.diff and *.patch in
// name order.
func patchFiles(p, cwd string) ([]string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, specErr("--patch %s: %v", p, err)
	}
	if !fi.IsDir() {
		return []string{p}, nil
	}
	var files []string
	for _, g := range []string{"*.diff", "*.patch"} {
		m, _ := filepath.Glob(filepath.Join(p, g))
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, specErr("--patch %s: the directory holds no *.diff or *.patch file", p)
	}
	return files, nil
}

// refHypothesis is what REF changed since it left the checkout's HEAD:
// git diff from their merge base to REF (a worktree manager's agent
// branch), applied over the checkout as it is.
func refHypothesis(ws, ref string) (engine.SpecHyp, error) {
	if strings.HasPrefix(ref, "-") {
		return engine.SpecHyp{}, specErr("--ref %q: a ref does not start with -", ref)
	}
	commit, err := gitOut(ws, "rev-parse", "--verify", "-q", ref+"^{commit}")
	if err != nil {
		return engine.SpecHyp{}, specErr("--ref %s: no such commit, branch or tag in %s (git branch -a lists them)", ref, ws)
	}
	mb, err := gitOut(ws, "merge-base", "HEAD", strings.TrimSpace(commit))
	if err != nil {
		return engine.SpecHyp{}, specErr("--ref %s: no merge base with HEAD in %s: %v", ref, ws, err)
	}
	diff, err := gitOut(ws, "diff", "--binary", "--no-color", "--no-ext-diff", "--no-renames", strings.TrimSpace(mb), strings.TrimSpace(commit))
	if err != nil {
		return engine.SpecHyp{}, specErr("--ref %s: git diff: %v", ref, err)
	}
	if strings.TrimSpace(diff) == "" {
		return engine.SpecHyp{}, specErr("--ref %s changes nothing since its merge base with HEAD (it is merged, or has no commits of its own)", ref)
	}
	return engine.SpecHyp{Patch: diff}, nil
}

// otherWorktrees lists the repository's worktrees but ws (git worktree
// list --porcelain), skipping bare and prunable ones.
func otherWorktrees(ws string) ([]string, error) {
	out, err := gitOut(ws, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, specErr("--worktrees: git worktree list in %s: %v", ws, err)
	}
	self := realPath(ws)
	var list []string
	for _, block := range strings.Split(strings.TrimSpace(out), "\n\n") {
		var path string
		skip := false
		for _, l := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(l, "worktree "):
				path = strings.TrimPrefix(l, "worktree ")
			case l == "bare" || strings.HasPrefix(l, "prunable"):
				skip = true
			}
		}
		if path == "" || skip || realPath(path) == self {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			continue // removed without git worktree remove
		}
		list = append(list, path)
	}
	return list, nil
}

// worktreeHypothesis is all a worktree holds that the checkout's HEAD
// does not: its commits since their merge base and its uncommitted work
// (git diff MB in the worktree covers both for tracked files), plus its
// untracked, not ignored files as new files.
func worktreeHypothesis(ws, wt string) (engine.SpecHyp, error) {
	head, err := gitOut(wt, "rev-parse", "--verify", "-q", "HEAD")
	if err != nil {
		return engine.SpecHyp{}, specErr("--worktrees: %s has no commit: %v", wt, err)
	}
	mb, err := gitOut(ws, "merge-base", "HEAD", strings.TrimSpace(head))
	if err != nil {
		return engine.SpecHyp{}, specErr("--worktrees: %s has no merge base with HEAD of %s: %v", wt, ws, err)
	}
	diff, err := gitOut(wt, "diff", "--binary", "--no-color", "--no-ext-diff", "--no-renames", strings.TrimSpace(mb))
	if err != nil {
		return engine.SpecHyp{}, specErr("--worktrees: git diff in %s: %v", wt, err)
	}
	hyp := engine.SpecHyp{Patch: diff}
	untracked, err := gitOut(wt, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return engine.SpecHyp{}, specErr("--worktrees: git ls-files in %s: %v", wt, err)
	}
	for _, rel := range strings.Split(untracked, "\x00") {
		if rel == "" {
			continue
		}
		p := filepath.Join(wt, filepath.FromSlash(rel))
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue // a symlink or socket: not a file to carry over
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return engine.SpecHyp{}, specErr("--worktrees: %s: %v", p, err)
		}
		enc := base64.StdEncoding.EncodeToString(b)
		hyp.Edits = append(hyp.Edits, engine.SpecEdit{Path: rel, ContentBase64: &enc, Mode: fmt.Sprintf("%04o", fi.Mode().Perm())})
	}
	if strings.TrimSpace(hyp.Patch) == "" {
		hyp.Patch = ""
		if len(hyp.Edits) == 0 {
			return engine.SpecHyp{}, specErr("--worktrees: %s holds nothing the checkout's HEAD does not (no commits of its own, no uncommitted work): remove it, or leave --worktrees out", wt)
		}
	}
	return hyp, nil
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// gitOut runs git in dir, with core.fsmonitor off on its command line (a
// ~/.gitconfig planted from a sandbox could name a program for it, as
// engine's and warm's git calls guard against) and without GIT_DIR and
// the like pointing it elsewhere.
func gitOut(dir string, args ...string) (string, error) {
	cmd := fsutil.Command("git", append([]string{"-c", "core.fsmonitor=false", "-C", dir}, args...)...)
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY":
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && stderr.Len() > 0 {
			return "", errors.New(strings.TrimSpace(stderr.String()))
		}
		return "", err
	}
	return out.String(), nil
}

var nameJunk = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// uniqueName makes s a valid hypothesis name (1-64 of A-Z a-z 0-9 . _ -)
// not yet in taken (compared without case, as the records are), and
// takes it: "feature/fix-add" becomes "feature-fix-add", a second "fix"
// "fix-2".
func uniqueName(s string, taken map[string]bool) string {
	s = strings.Trim(nameJunk.ReplaceAllString(s, "-"), "-.")
	if s == "" {
		s = "hyp"
	}
	if len(s) > 60 {
		s = s[:60]
	}
	name := s
	for i := 2; taken[strings.ToLower(name)]; i++ {
		name = fmt.Sprintf("%s-%d", s, i)
	}
	taken[strings.ToLower(name)] = true
	return name
}

// Refs lists the branches and tags of the repository holding dir, for
// the completion of --ref.
func Refs(dir string) ([]string, error) {
	out, err := gitOut(dir, "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/tags", "refs/remotes")
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}
