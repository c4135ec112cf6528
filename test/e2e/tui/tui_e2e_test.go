//go:build linux

package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/test/e2e"
)

// These tests drive the real binary full screen in tmux: what a user in a
// tmux pane sees. They need tmux (CI installs it) and overlay sandboxes.

type tmuxEnv struct {
	t      *testing.T
	sock   string
	bin    string
	ws     string
	state  string
	dir    string
	script string
}

func newTmuxEnv(t *testing.T) *tmuxEnv {
	t.Helper()
	e2e.Parallel(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install tmux): the TUI end-to-end tests need it")
	}
	e := &tmuxEnv{t: t, ws: t.TempDir(), state: t.TempDir(), dir: t.TempDir()}
	if v := overlay.Probe(filepath.Join(e.state, "probe")); v.Mode != "overlay" {
		t.Skipf("overlay unavailable: %s", v.Reason)
	}
	// The test binary is the shadow binary (TestMain dispatches main with
	// SHADOW_E2E_MAIN=1), so this also runs where no Go toolchain or source
	// tree is at hand, e.g. CI's unprivileged pass.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e.bin = filepath.Join(e.dir, "shadow")
	wrapper := "#!/bin/sh\nSHADOW_E2E_MAIN=1 exec '" + exe + "' \"$@\"\n"
	if err := os.WriteFile(e.bin, []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	e.sock = fmt.Sprintf("shadow-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())
	t.Cleanup(func() { exec.Command("tmux", "-L", e.sock, "kill-server").Run() })
	if err := os.WriteFile(filepath.Join(e.ws, "v.txt"), []byte("bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}},
	}}
	b, _ := json.Marshal(spec)
	if err := os.WriteFile(filepath.Join(e.dir, "spec.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

// testCmd is the hypotheses' command: it passes only when v.txt says good.
var testCmd = []string{"sh", "-c", `echo checking v.txt; sleep 1; test "$(cat v.txt)" = good && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }`}

func tmuxQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// start runs args of the shadow binary in a new tmux session of w×h; its
// exit code lands in the file rc.
func (e *tmuxEnv) start(name string, w, h int, args ...string) {
	e.t.Helper()
	line := fmt.Sprintf("cd %s && env XDG_STATE_HOME=%s TERM=xterm-256color %s %s; echo $? > %s; sleep 600",
		tmuxQuote([]string{e.dir}), tmuxQuote([]string{e.state}), tmuxQuote([]string{e.bin}), tmuxQuote(args),
		tmuxQuote([]string{filepath.Join(e.dir, name+".rc")}))
	c := exec.Command("tmux", "-L", e.sock, "-f", "/dev/null", "new-session", "-d", "-s", name,
		"-x", fmt.Sprint(w), "-y", fmt.Sprint(h), line)
	if out, err := c.CombinedOutput(); err != nil {
		e.t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
}

func (e *tmuxEnv) screen(name string) string {
	out, _ := exec.Command("tmux", "-L", e.sock, "capture-pane", "-p", "-t", name).Output()
	return string(out)
}

// waitScreen polls the pane until every string shows, or fails.
func (e *tmuxEnv) waitScreen(name string, d time.Duration, subs ...string) string {
	e.t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := e.screen(name)
		ok := true
		for _, sub := range subs {
			ok = ok && strings.Contains(s, sub)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the screen never showed %q; it shows:\n%s", subs, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (e *tmuxEnv) keys(name string, keys ...string) {
	args := append([]string{"-L", e.sock, "send-keys", "-t", name}, keys...)
	exec.Command("tmux", args...).Run()
}

func (e *tmuxEnv) exitCode(name string, d time.Duration) string {
	e.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(e.dir, name+".rc")); err == nil && len(b) > 0 {
			return strings.TrimSpace(string(b))
		}
		time.Sleep(100 * time.Millisecond)
	}
	e.t.Fatalf("%s did not exit; the screen shows:\n%s", name, e.screen(name))
	return ""
}

func TestTUIEndToEndInTmux(t *testing.T) {
	e := newTmuxEnv(t)
	args := append([]string{"tui", "-C", e.ws, "spec.json", "--"}, testCmd...)
	e.start("run", 100, 30, args...)
	e.waitScreen("run", 30*time.Second, "baseline", "fix", "leaderboard")
	s := e.waitScreen("run", 60*time.Second, "★ winner fix")
	for i, l := range strings.Split(s, "\n") {
		if n := len([]rune(l)); n > 100 {
			t.Errorf("line %d is %d cells wide in a 100-column pane", i, n)
		}
	}
	e.keys("run", "q")
	if rc := e.exitCode("run", 20*time.Second); rc != "0" {
		t.Errorf("exit code %s, want 0 (a winner)", rc)
	}
	// The text report stays in the terminal after the screen closes.
	e.waitScreen("run", 5*time.Second, "winner: fix")
	if b, _ := os.ReadFile(filepath.Join(e.ws, "v.txt")); string(b) != "bad\n" {
		t.Errorf("the checkout changed: v.txt = %q", b)
	}
}

func TestTUIQuitConfirmCancelsInTmux(t *testing.T) {
	e := newTmuxEnv(t)
	slow := []string{"sh", "-c", "echo started; sleep 60"}
	args := append([]string{"tui", "-C", e.ws, "spec.json", "--"}, slow...)
	e.start("run", 80, 24, args...)
	e.waitScreen("run", 30*time.Second, "started")
	e.keys("run", "q")
	e.waitScreen("run", 5*time.Second, "Cancel it and quit? [y/N]")
	e.keys("run", "y")
	// A run cancelled from the screen is interrupted, as by Ctrl-C or
	// SIGINT: 130, and no winner (docs/cli.md, "Exit codes").
	if rc := e.exitCode("run", 30*time.Second); rc != "130" {
		t.Errorf("exit code %s after cancelling, want 130 (interrupted)", rc)
	}
}

func TestWatchFollowsHeadlessRunInTmux(t *testing.T) {
	e := newTmuxEnv(t)
	e.start("watch", 100, 30, "watch", "-C", e.ws)
	e.waitScreen("watch", 15*time.Second, "watching")
	// Another process makes a run of this workspace.
	// Slow enough that a poll every 250 ms sees it running.
	slow := []string{"sh", "-c", `echo checking v.txt; sleep 3; test "$(cat v.txt)" = good`}
	args := append([]string{"--headless", "-C", e.ws, filepath.Join(e.dir, "spec.json"), "--"}, slow...)
	c := exec.Command(e.bin, args...)
	c.Env = append(os.Environ(), "XDG_STATE_HOME="+e.state)
	c.Dir = e.dir
	done := make(chan error, 1)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- c.Wait() }()
	e.waitScreen("watch", 30*time.Second, "baseline", "fix", "running")
	if err := <-done; err != nil {
		t.Fatalf("headless run: %v", err)
	}
	e.waitScreen("watch", 15*time.Second, "★ winner fix")
	e.keys("watch", "q")
	if rc := e.exitCode("watch", 10*time.Second); rc != "0" {
		t.Errorf("watch exit code %s, want 0", rc)
	}
}

// Closing the terminal (SIGHUP) after the run has ended must end the
// program too, not leave it running without a terminal.
func TestTUIExitsOnHangupAfterRun(t *testing.T) {
	e := newTmuxEnv(t)
	args := append([]string{"tui", "-C", e.ws, "spec.json", "--"}, testCmd...)
	e.start("run", 100, 30, args...)
	e.waitScreen("run", 60*time.Second, "★ winner fix")
	pid := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), "\x00tui\x00-C\x00"+e.ws+"\x00") {
			fmt.Sscanf(strings.TrimPrefix(p, "/proc/"), "%d/", &pid)
		}
	}
	if pid == 0 {
		t.Fatal("shadow tui process not found")
	}
	syscall.Kill(pid, syscall.SIGHUP)
	e.exitCode("run", 10*time.Second)
}

// The full output of a 3,000-line failure, in a real terminal: it opens
// at the failure, g goes to the top, and / finds a line far down.
func TestTUIOutputViewInTmux(t *testing.T) {
	e := newTmuxEnv(t)
	long := []string{"sh", "-c", `i=0; while [ $i -lt 3000 ]; do echo "marker line $i"; i=$((i+1)); done; ` +
		`test "$(cat v.txt)" = good && echo "1 passed, 0 failed" || { echo "error: v.txt says bad"; echo "0 passed, 1 failed"; exit 1; }`}
	args := append([]string{"tui", "-C", e.ws, "spec.json", "--"}, long...)
	e.start("run", 100, 30, args...)
	e.waitScreen("run", 60*time.Second, "★ winner fix", "[results]")
	e.keys("run", "l") // the results in rank order: fix, then baseline
	e.waitScreen("run", 5*time.Second, "── baseline · ")
	e.keys("run", "Enter")
	e.waitScreen("run", 10*time.Second, "output of baseline", "error: v.txt says bad", "/3002 (100%)")
	e.keys("run", "g")
	e.waitScreen("run", 5*time.Second, "marker line 0", "line 1/3002")
	e.keys("run", "/")
	e.keys("run", "-l", "marker line 2345")
	e.keys("run", "Enter")
	// The title names the search once it found the line (the prompt row
	// holds the query while it is typed).
	s := e.waitScreen("run", 5*time.Second, "marker line 2345", "/marker line 2345 · n/N")
	if strings.Contains(s, "marker line 0\n") {
		t.Errorf("the search did not move the view:\n%s", s)
	}
	e.keys("run", "Escape")
	e.waitScreen("run", 5*time.Second, "[results]")
	e.keys("run", "q")
	if rc := e.exitCode("run", 20*time.Second); rc != "0" {
		t.Errorf("exit code %s, want 0 (a winner)", rc)
	}
}

// A real SIGINT while the TUI's run goes on: the run is cancelled and the
// exit code is 130 (docs/cli.md), not a result's 0 or 1.
func TestTUIInterruptExits130(t *testing.T) {
	e := newTmuxEnv(t)
	marker := "shadow-e2e-int-" + strconv.Itoa(os.Getpid())
	args := []string{"tui", "-C", e.ws, "spec.json", "--", "sh", "-c", "echo " + marker + "; sleep 30"}
	e.start("run", 100, 30, args...)
	e.waitScreen("run", 30*time.Second, "baseline", "fix")
	pid := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), "\x00tui\x00-C\x00"+e.ws+"\x00") {
			fmt.Sscanf(strings.TrimPrefix(p, "/proc/"), "%d/", &pid)
		}
	}
	if pid == 0 {
		t.Fatal("shadow tui process not found")
	}
	time.Sleep(time.Second) // the hypotheses are running
	syscall.Kill(pid, syscall.SIGINT)
	if rc := e.exitCode("run", 20*time.Second); rc != "130" {
		t.Errorf("exit code %s after SIGINT, want 130", rc)
	}
}
