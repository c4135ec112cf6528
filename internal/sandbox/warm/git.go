package warm

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// gitEnv is the caller's environment without the variables that would
// point git at another repository than the workspace's.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// safeConfig overrides, on the command line (which wins over every config
// file, git-config(1)), the settings that make the git commands asked here
// run a program: $HOME is writable from inside every sandbox, so a
// candidate can plant a ~/.gitconfig whose core.fsmonitor `git ls-files`
// and `git check-ignore` would run as shadow, outside the sandbox.
var safeConfig = []string{"-c", "core.fsmonitor=false"}

func git(ws string, stdin []byte, args ...string) ([]byte, int, error) {
	cmd := fsutil.Command("git", append(append(append([]string{}, safeConfig...), "-C", ws), args...)...)
	cmd.Env = gitEnv()
	cmd.Stdin = bytes.NewReader(stdin)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return nil, -1, fmt.Errorf("git in %s: %w", ws, err)
	}
	if code > 1 {
		return nil, code, fmt.Errorf("git %s in %s: %s", args[0], ws, strings.TrimSpace(stderr.String()))
	}
	return out.Bytes(), code, nil
}

// isGitCheckout reports whether ws is (inside) a git work tree.
func isGitCheckout(ws string) bool {
	out, _, err := git(ws, nil, "rev-parse", "--is-inside-work-tree")
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// ignored returns which of paths (workspace-relative, '/'-separated; a
// directory with a trailing '/', so directory-only patterns such as
// "target/" match it even where the checkout has no such directory) git
// ignores. check-ignore consults the index: a tracked path is never
// reported, whatever the patterns say.
func ignored(ws string, paths []string) (map[string]bool, error) {
	got := map[string]bool{}
	if len(paths) == 0 {
		return got, nil
	}
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	out, _, err := git(ws, in.Bytes(), "check-ignore", "-z", "--stdin")
	if err != nil {
		return nil, err
	}
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			got[string(p)] = true
		}
	}
	return got, nil
}

// tracked returns the tracked files at or under roots (trailing '/' of a
// directory root allowed): check-ignore says a directory is ignored even
// when a file in it was added with `git add -f`.
func tracked(ws string, roots []string) (map[string]bool, error) {
	got := map[string]bool{}
	if len(roots) == 0 {
		return got, nil
	}
	// --literal-pathspecs: a root named "a[1]" is a path, not a glob.
	// Batches keep the argument list well under ARG_MAX.
	for len(roots) > 0 {
		n := min(len(roots), 512)
		args := []string{"--literal-pathspecs", "ls-files", "-z", "--"}
		for _, r := range roots[:n] {
			args = append(args, strings.TrimSuffix(r, "/"))
		}
		roots = roots[n:]
		out, _, err := git(ws, nil, args...)
		if err != nil {
			return nil, err
		}
		for _, p := range bytes.Split(out, []byte{0}) {
			if len(p) > 0 {
				got[string(p)] = true
			}
		}
	}
	return got, nil
}
