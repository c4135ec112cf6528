//go:build linux

package tui

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/shadow-dev/shadow/test/e2e"
)

// runInPTY starts the shadow binary (the test binary, SHADOW_E2E_MAIN=1)
// with stdin, stdout and stderr on a pseudo-terminal that nobody types
// into, as script(1) or an agent's PTY tool runs it, and returns what it
// drew and its exit code; it fails if it has not ended within d.
func runInPTY(t *testing.T, e *e2e.Env, d time.Duration, extraEnv []string, args ...string) (string, int) {
	t.Helper()
	c := e.Cmd(args...)
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
		// Drain what the child wrote before it exited: the reader ends
		// (EIO) once the last slave fd closes; closing the master first
		// would drop the report's last lines.
		select {
		case <-copied:
		case <-time.After(5 * time.Second):
		}
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

// A harness that runs commands in a PTY and never types must not hang on
// the TUI after the run has finished. Plain `shadow SPEC -- CMD` ends
// with the run and leaves the text report.
func TestPlainRunUnderPTYWithoutInputEnds(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("v.txt", "bad\n", 0o644)
	spec := e.Spec(map[string]any{"hypotheses": []any{
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
		out, code := runInPTY(t, e, 60*time.Second, tc.env, append([]string{"-C", e.WS, spec, "--"}, cmd...)...)
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
	e := e2e.NewEnv(t)
	e.Write("v.txt", "bad\n", 0o644)
	spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}}})
	_, stderr, code := e.Shadow("tui", "-C", e.WS, spec, "--", "true")
	if code != 3 || !strings.Contains(stderr, "needs a terminal") {
		t.Errorf("shadow tui without a terminal: exit %d, %s", code, stderr)
	}
}

// Ctrl-C typed in the TUI (a key, not a signal: the screen's terminal is
// raw) cancels the run and exits 130, as SIGINT does, and the report it
// prints names no winner, although one hypothesis passed before it.
func TestTUICtrlCKeyExits130WithoutWinnerInTmux(t *testing.T) {
	e := newTmuxEnv(t)
	cmd := []string{"sh", "-c", `test "$(cat v.txt)" = good || sleep 60`}
	// env CI= : CI may say "not interactive" where the test runs; the
	// screen is what is tested here.
	noCI := filepath.Join(e.dir, "shadow-noci")
	if err := os.WriteFile(noCI, []byte("#!/bin/sh\nunset CI\nexec '"+e.bin+"' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.bin = noCI
	e.start("run", 100, 30, append([]string{"-C", e.ws, "spec.json", "--"}, cmd...)...)
	// The layer is cold for sh, so the baseline runs alone first; it
	// sleeps, and the fix starts beside it once it has been idle for 10 s
	// (docs/modes.md "Baseline first").
	e.waitScreen("run", 60*time.Second, "passed", "running") // the TUI's columns
	e.keys("run", "C-c")
	if rc := e.exitCode("run", 30*time.Second); rc != "130" {
		t.Errorf("exit code %s after Ctrl-C in the TUI, want 130", rc)
	}
	s := e.screen("run")
	if strings.Contains(s, "winner: fix") || !strings.Contains(s, "no winner: the run was interrupted") {
		t.Errorf("the report after Ctrl-C names a winner, or not the interrupt:\n%s", s)
	}
}

// SIGTERM is an interrupt as SIGINT is: 130, a cancelled report, no
// winner in the text report, in every headless mode.
func TestHeadlessSIGTERMExits130(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("v.txt", "bad\n", 0o644)
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}},
	}})
	for _, mode := range []string{"--headless", "--json", "--events"} {
		marker := fmt.Sprintf("4242.%d%d", os.Getpid(), len(mode))
		c := e.Cmd(mode, "-C", e.WS, spec, "--", "sh", "-c", `test "$(cat v.txt)" = good || sleep `+marker)
		var stdout bytes.Buffer
		c.Stdout = &stdout
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		e2e.WaitPresent(t, marker)
		c.Process.Signal(syscall.SIGTERM)
		c.Wait()
		if rc := c.ProcessState.ExitCode(); rc != 130 {
			t.Errorf("%s: exit %d after SIGTERM, want 130", mode, rc)
		}
		out := stdout.String()
		switch mode {
		case "--headless":
			if strings.Contains(out, "winner: fix") || !strings.Contains(out, "no winner: the run was interrupted") {
				t.Errorf("%s: the report names a winner, or not the interrupt:\n%s", mode, out)
			}
		case "--json":
			if r := e.Report(out); !r.Cancelled {
				t.Errorf("%s: report not cancelled", mode)
			}
		}
		e2e.WaitGone(t, marker)
	}
}
