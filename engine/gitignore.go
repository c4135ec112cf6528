package engine

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
)

// ignoreChecker asks one long-lived `git check-ignore --stdin` which paths
// git's ignore rules match, so the watch leaves build outputs out without a
// gitignore matcher of its own (nested .gitignore files, negations,
// info/exclude and core.excludesFile all apply as git applies them).
// --no-index: the rules alone; with the index, git 2.39 searches it once per
// path (~4 ms a path on a 100k-file index). Tracked files the rules match
// are found by gitTrackedIgnored instead.
type ignoreChecker struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	bad bool // git failed: every path counts as a source from then on
}

// isGitCheckout: the workspace lies in a git work tree (git answers for
// paths relative to it either way).
func isGitCheckout(workspace string) bool {
	out, err := exec.Command("git", "-C", workspace, "rev-parse", "--is-inside-work-tree").Output()
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

func newIgnoreChecker(workspace string) *ignoreChecker {
	c := exec.Command("git", "-C", workspace, "check-ignore", "--no-index", "-z", "--stdin", "-v", "-n")
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

func (c *ignoreChecker) close() {
	if c == nil || c.cmd == nil {
		return
	}
	c.in.Close()
	c.cmd.Process.Kill()
	c.cmd.Wait()
	c.cmd = nil
}

// gitClassify tells, for paths named by events in a git checkout, which
// git tracks (with the index's mode: "100644", "100755", ...) and which
// it ignores. A source is tracked, or not ignored.
func gitClassify(workspace string) func([]string) (map[string]string, map[string]bool) {
	return func(paths []string) (map[string]string, map[string]bool) {
		c := newIgnoreChecker(workspace)
		defer c.close()
		return gitIndexModes(workspace, paths), c.ignored(paths)
	}
}

// gitIndexModes gives the index's mode of each of paths git tracks.
func gitIndexModes(workspace string, paths []string) map[string]string {
	modes := map[string]string{}
	for len(paths) > 0 {
		n := min(len(paths), 1000) // pathspecs go on the command line
		args := append([]string{"-C", workspace, "--literal-pathspecs", "ls-files", "-z", "-s", "--"}, paths[:n]...)
		paths = paths[n:]
		out, err := exec.Command("git", args...).Output()
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

// gitTrackedIgnored lists the tracked files that git's ignore rules match
// (force-added, or tracked before the rule): their directories are
// watched although ignored.
func gitTrackedIgnored(workspace string) []string {
	out, _ := gitZ(workspace, "ls-files", "-z", "--cached", "--ignored", "--exclude-standard")
	return out
}
