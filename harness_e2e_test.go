//go:build linux

package main

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// runInPTY starts the shadow binary (the test binary, SHADOW_E2E_MAIN=1)
// with stdin, stdout and stderr on a pseudo-terminal that nobody types
// into, as script(1) or an agent's PTY tool runs it, and returns what it
// drew and its exit code; it fails if it has not ended within d.
func runInPTY(t *testing.T, e *env, d time.Duration, extraEnv []string, args ...string) (string, int) {
	t.Helper()
	c := e.cmd(args...)
	c.Env = append(c.Env, "TERM=xterm-256color", "CI=")
	c.Env = append(c.Env, extraEnv...)
	f, err := pty.StartWithSize(c, &pty.Winsize{Rows: 24, Cols: 100})
	if err != nil {
		t.Fatalf("pty: %v", err)
	}
	defer f.Close()
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&out, f); close(copied) }() // EIO once the child is gone
	waited := make(chan error, 1)
	go func() { waited <- c.Wait() }()
	select {
	case err := <-waited:
		f.Close()
		<-copied
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return out.String(), code
	case <-time.After(d):
		c.Process.Signal(syscall.SIGKILL)
		<-waited
		t.Fatalf("shadow under a pseudo-terminal without keyboard input did not end within %v; it drew:\n%q", d, out.String())
	}
	return "", 0
}

// issue 24: a harness that runs commands in a PTY and never types hung
// on the TUI after the run had finished. Plain `shadow SPEC -- CMD` ends
// with the run and leaves the text report.
func TestPlainRunUnderPTYWithoutInputEnds(t *testing.T) {
	e := newEnv(t)
	e.write("v.txt", "bad\n", 0o644)
	spec := e.spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}},
	}})
	cmd := []string{"sh", "-c", `test "$(cat v.txt)" = good`}
	for _, tc := range []struct {
		name string
		env  []string
	}{
		{"a terminal that nobody types into", nil},
		{"CI=true", []string{"CI=true"}},
		{"TERM=dumb", []string{"TERM=dumb"}},
	} {
		out, code := runInPTY(t, e, 60*time.Second, tc.env, append([]string{"-C", e.ws, spec, "--"}, cmd...)...)
		if code != 0 || !strings.Contains(out, "winner: fix") {
			t.Errorf("%s: exit %d, want 0 and the text report naming the winner; it drew:\n%q", tc.name, code, out)
		}
		if tc.env != nil && strings.Contains(out, "\x1b[?1049h") {
			t.Errorf("%s: the full screen started: %q", tc.name, out)
		}
	}
}

// `shadow tui` still forces the screen where stdin is no terminal (a
// stdout that is one is enough): it refuses only where stdout is not.
func TestTUIRefusedWithoutTerminalStdout(t *testing.T) {
	e := newEnv(t)
	e.write("v.txt", "bad\n", 0o644)
	spec := e.spec(map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}}})
	_, stderr, code := e.shadow("tui", "-C", e.ws, spec, "--", "true")
	if code != 3 || !strings.Contains(stderr, "needs a terminal") {
		t.Errorf("shadow tui without a terminal: exit %d, %s", code, stderr)
	}
}
