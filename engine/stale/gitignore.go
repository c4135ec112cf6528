package stale

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// ignoreChecker asks one long-lived `git check-ignore --stdin` which paths
// git's ignore rules match, so the watch leaves build outputs out without a
// gitignore matcher of its own (nested .gitignore files, negations,
// info/exclude and core.excludesFile all apply as git applies them).
// Asked with --no-index, the rules alone: with the index, git 2.39 searches
// it once per path (~4 ms a path on a 100k-file index).
type ignoreChecker struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	bad bool // git failed: every path counts as a source from then on
}

// SafeGitConfig goes first on git's command line, which wins over every
// config file (git-config(1)): $HOME is writable from inside the
// sandboxes, and a candidate's ~/.gitconfig naming a core.fsmonitor
// program would have `git ls-files` and `git check-ignore`, which shadow
// runs outside the sandbox during and after the run, start it.
func SafeGitConfig() []string { return []string{"-c", "core.fsmonitor=false"} }

// isGitCheckout: the workspace lies in a git work tree: it or a parent
// holds a .git (a directory, or a worktree's or submodule's file). A stat
// per level, no process; git answers for paths relative to the workspace
// either way.
func isGitCheckout(workspace string) bool {
	for d := workspace; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// newIgnoreChecker starts `git check-ignore`; withIndex false adds
// --no-index (the rules alone, fast), true lets git say a path it tracks,
// or a directory holding tracked files, is not ignored (slow on a large
// index: ask it only about what the rules ignore).
func newIgnoreChecker(workspace string, withIndex bool) *ignoreChecker {
	args := append(SafeGitConfig(), "-C", workspace, "check-ignore", "-z", "--stdin", "-v", "-n")
	if !withIndex {
		args = append(args, "--no-index")
	}
	c := fsutil.Command("git", args...)
	// GIT_FLUSH: one answer per path as soon as it is known (the
	// questions come in batches, each waiting for its answers).
	c.Env = append(os.Environ(), "GIT_FLUSH=1")
	in, err := c.StdinPipe()
	if err != nil {
		return &ignoreChecker{bad: true}
	}
	out, err := c.StdoutPipe()
	if err != nil {
		return &ignoreChecker{bad: true}
	}
	if err := c.Start(); err != nil {
		return &ignoreChecker{bad: true}
	}
	return &ignoreChecker{cmd: c, in: in, out: bufio.NewReaderSize(out, 64<<10)}
}

// ignored answers for each path (relative, '/'-separated) whether git
// ignores it. When git cannot answer, nothing is ignored: more paths are
// watched and reported, none missed.
func (c *ignoreChecker) ignored(paths []string) map[string]bool {
	res := make(map[string]bool, len(paths))
	if c == nil || c.bad || len(paths) == 0 {
		return res
	}
	werr := make(chan error, 1)
	go func() {
		var b bytes.Buffer
		for _, p := range paths {
			b.WriteString(p)
			b.WriteByte(0)
		}
		_, err := c.in.Write(b.Bytes())
		werr <- err
	}()
	// With -v -n each path gets four fields: source, line, pattern, path;
	// the source is empty when no pattern matched, and a matching
	// negated pattern ("!keep.o") means not ignored.
	for range paths {
		var f [4]string
		for i := range f {
			s, err := c.out.ReadString(0)
			if err != nil {
				c.fail()
				<-werr
				return map[string]bool{}
			}
			f[i] = strings.TrimSuffix(s, "\x00")
		}
		res[f[3]] = f[0] != "" && !strings.HasPrefix(f[2], "!")
	}
	if err := <-werr; err != nil {
		c.fail()
		return map[string]bool{}
	}
	return res
}

func (c *ignoreChecker) fail() {
	c.bad = true
	c.close()
}

// close ends git: at end of input it exits by itself; the wait (which
// reaps it) need not hold the run up.
func (c *ignoreChecker) close() {
	if c == nil || c.cmd == nil {
		return
	}
	c.in.Close()
	go c.cmd.Wait()
	c.cmd = nil
}

// sourceDirs keeps of dirs those git does not ignore: the rules'
// answer, and for what the rules ignore, the index's (a directory holding
// tracked files is not ignored; such directories are rare, so the slow
// index-aware git runs only when one turns up).
func (g *gitIgnore) sourceDirs(dirs []string) []string {
	ign := g.rules.ignored(dirs)
	var kept, asked []string
	for _, d := range dirs {
		if ign[d] {
			asked = append(asked, d)
		} else {
			kept = append(kept, d)
		}
	}
	if len(asked) > 0 {
		if g.index == nil {
			g.index = newIgnoreChecker(g.workspace, true)
		}
		idx := g.index.ignored(asked)
		for _, d := range asked {
			if !idx[d] && !g.index.bad {
				kept = append(kept, d)
			}
		}
	}
	return kept
}

// gitIgnore answers which directories of a git checkout hold sources.
type gitIgnore struct {
	workspace    string
	rules, index *ignoreChecker
}

func newGitIgnore(workspace string) *gitIgnore {
	return &gitIgnore{workspace: workspace, rules: newIgnoreChecker(workspace, false)}
}

func (g *gitIgnore) close() {
	if g != nil {
		g.rules.close()
		g.index.close()
	}
}

// gitClassify tells, for paths named by events in a git checkout, which
// git tracks (with the index's mode: "100644", "100755", ...) and which
// it ignores. A source is tracked, or not ignored.
func gitClassify(workspace string) func([]string) (map[string]string, map[string]bool) {
	return func(paths []string) (map[string]string, map[string]bool) {
		c := newIgnoreChecker(workspace, false)
		defer c.close()
		return gitIndexModes(workspace, paths), c.ignored(paths)
	}
}

// gitIndexModes gives the index's mode of each of paths git tracks.
func gitIndexModes(workspace string, paths []string) map[string]string {
	modes := map[string]string{}
	for len(paths) > 0 {
		n := min(len(paths), 1000) // pathspecs go on the command line
		args := append(append(SafeGitConfig(), "-C", workspace, "--literal-pathspecs", "ls-files", "-z", "-s", "--"), paths[:n]...)
		paths = paths[n:]
		out, err := fsutil.Command("git", args...).Output()
		if err != nil {
			continue
		}
		for _, rec := range bytes.Split(out, []byte{0}) {
			meta, p, ok := strings.Cut(string(rec), "\t")
			if f := strings.Fields(meta); ok && len(f) == 3 {
				modes[p] = f[0]
			}
		}
	}
	return modes
}
