//go:build linux

package e2e

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// In-place mode through the real binary, on a machine made to look like
// one without user namespaces (SHADOW_TEST_NO_USERNS=1).

func NewInplaceEnv(t *testing.T) *Env {
	t.Helper()
	Parallel(t)
	e := &Env{T: t, WS: t.TempDir(), State: t.TempDir(), Dir: t.TempDir()}
	e.Write("v.txt", "bad\n", 0o644)
	e.Write("old.txt", "old\n", 0o600)
	e.Write("run.sh", "#!/bin/sh\n", 0o755)
	e.Write("lib/a/b.txt", "b\n", 0o644)
	if err := os.Symlink("v.txt", filepath.Join(e.WS, "vlink")); err != nil {
		t.Fatal(err)
	}
	return e
}

// RunEnv runs shadow with extra environment and returns stdout, stderr and
// the exit code; killed reports death by SIGKILL.
func (e *Env) RunEnv(extra []string, args ...string) (stdout, stderr string, code int, killed bool) {
	e.T.Helper()
	c := e.Cmd(args...)
	c.Env = append(c.Env, extra...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			killed = true
		}
	} else if err != nil {
		e.T.Fatal(err)
	}
	return out.String(), errb.String(), code, killed
}

// Contents lists every path with its type, mode and content or target;
// with mtimes, also every mtime (directories' too).
func Contents(t *testing.T, root string, mtimes bool) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "%s %s", rel, fi.Mode())
		if mtimes {
			fmt.Fprintf(&b, " %d", fi.ModTime().UnixNano())
		}
		if fi.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %q", c)
		} else if fi.Mode()&fs.ModeSymlink != 0 {
			l, _ := os.Readlink(p)
			fmt.Fprintf(&b, " -> %s", l)
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func (e *Env) InplaceSpec() string {
	return e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "fix", "edits": []any{
			map[string]any{"path": "v.txt", "content": "good\n"},
			map[string]any{"path": "vlink", "content": "plain now\n"},
			map[string]any{"path": "new/dir/n.txt", "content": "n\n"},
		}},
		map[string]any{"name": "gone", "delete": []string{"old.txt", "lib"}},
	}})
}

var NoUserNS = []string{"SHADOW_TEST_NO_USERNS=1"}
