//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/internal/fsutil"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/reaper"
	"github.com/shadow-dev/shadow/internal/sandbox/remote"
	"github.com/shadow-dev/shadow/overlay"
)

// The test binary doubles as the shadow binary: with SHADOW_E2E_MAIN=1 it
// runs main's dispatch, and as argv[0] shadow-sandbox-init it is the init.
func TestMain(m *testing.M) {
	maybeSeccompE2E() // copy_e2e_test.go: shadow under Docker's namespace rules
	overlay.MaybeInit()
	reaper.MaybeHelper()
	remote.MaybeNode()
	if os.Getenv("SHADOW_E2E_MAIN") == "1" {
		os.Exit(dispatch(os.Args[1:]))
	}
	os.Exit(m.Run())
}

type env struct {
	t     *testing.T
	ws    string
	state string
	dir   string // holds specs, outside the workspace
	// extraEnv is added to the binary's environment: the tests run in
	// parallel (parallel), so t.Setenv, which changes the test process's
	// own environment, cannot be used.
	extraEnv []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	parallel(t)
	e := &env{t: t, ws: t.TempDir(), state: t.TempDir(), dir: t.TempDir()}
	if v := overlay.Probe(filepath.Join(e.state, "probe")); v.Mode != "overlay" {
		t.Skipf("overlay unavailable: %s", v.Reason)
	}
	return e
}

func (e *env) write(rel, content string, mode os.FileMode) {
	e.t.Helper()
	p := filepath.Join(e.ws, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) spec(v any) string {
	e.t.Helper()
	b, _ := json.Marshal(v)
	p := filepath.Join(e.dir, "spec.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) cmd(args ...string) *exec.Cmd {
	exe, _ := os.Executable()
	c := exec.Command(exe, args...)
	c.Dir = e.dir
	c.Env = append(append(os.Environ(), "SHADOW_E2E_MAIN=1", "XDG_STATE_HOME="+e.state), e.extraEnv...)
	return c
}

// shadow runs the binary to completion and returns stdout, stderr and the
// exit code.
func (e *env) shadow(args ...string) (string, string, int) {
	e.t.Helper()
	c := e.cmd(args...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func (e *env) report(stdout string) *engine.Report {
	e.t.Helper()
	var r engine.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		e.t.Fatalf("report is not JSON: %v\n%s", err, stdout)
	}
	return &r
}

func byName(r *engine.Report) map[string]*engine.Result {
	m := map[string]*engine.Result{}
	for _, h := range r.Hypotheses {
		m[h.Name] = h
	}
	return m
}

// tree records every path with mode, size, mtime and content.
func tree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		b.WriteString(rel + " " + fi.Mode().String() + " " + strconv.FormatInt(fi.Size(), 10) + " " + fi.ModTime().String() + "\n")
		if fi.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			b.Write(c)
		}
		return nil
	})
	return b.String()
}

const checkScript = `test "$(cat v.txt)" = good && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }`

func TestE2EWorkspaceUntouchedAndRanked(t *testing.T) {
	e := newEnv(t)
	e.write("v.txt", "bad\n", 0o644)
	e.write("old.txt", "old\n", 0o644)
	e.write("target/debug/warm.bin", "warm cache\n", 0o644)
	before := tree(t, e.ws)
	spec := e.spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}},
		map[string]any{"name": "gone", "delete": []string{"old.txt"}, "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}},
	}})
	// The command also rebuilds the "warm" directory, as a build would.
	out, stderr, code := e.shadow("--headless", "--json", "-C", e.ws, spec, "--", "sh", "-c",
		"echo rebuilt > target/debug/warm.bin; test ! -e old.txt && echo OLD-GONE; "+checkScript)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	r := e.report(out)
	if r.Schema != "shadow.report/v1" || r.Mode != "overlay" || r.Winner == nil || *r.Winner != "fix" {
		t.Fatalf("report: schema %q mode %q winner %v", r.Schema, r.Mode, r.Winner)
	}
	h := byName(r)
	if b := h["baseline"]; b.Status != "failed" || b.Tests == nil || b.Tests.Failed != 1 {
		t.Errorf("baseline (v.txt is bad): status %s tests %+v", b.Status, b.Tests)
	}
	if h["fix"].Rank != 1 || h["gone"].Rank != 2 || h["baseline"].Rank != 3 {
		t.Errorf("ranks fix %d gone %d baseline %d", h["fix"].Rank, h["gone"].Rank, h["baseline"].Rank)
	}
	if !strings.Contains(h["gone"].OutputTail, "OLD-GONE") || strings.Contains(h["fix"].OutputTail, "OLD-GONE") {
		t.Errorf("deletion must take effect only inside its hypothesis")
	}
	if h["fix"].Tests == nil || h["fix"].Tests.Passed != 1 {
		t.Errorf("fix tests %+v", h["fix"].Tests)
	}
	if after := tree(t, e.ws); after != before {
		t.Errorf("workspace changed by the run:\n%s\n---\n%s", before, after)
	}
	if _, err := os.Stat(h["fix"].Log); err != nil {
		t.Errorf("log file: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Join(e.state, "shadow", "sandboxes")); len(left) != 0 {
		t.Errorf("sandbox dirs left: %v", left)
	}
}

func TestE2ESpecErrorsExit2AndWriteNothing(t *testing.T) {
	e := newEnv(t)
	e.write("a.txt", "a\n", 0o644)
	cases := map[string]string{
		"unknown field": `{"hypotheses":[{"name":"x","bogus":1}]}`,
		"absolute path": `{"hypotheses":[{"name":"x","edits":[{"path":"/etc/passwd","content":""}]}]}`,
		"dup name":      `{"hypotheses":[{"name":"x"},{"name":"x"}]}`,
		"bad patch":     `{"hypotheses":[{"name":"x","patch":"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-zzz\n+b\n"}]}`,
	}
	for name, spec := range cases {
		p := filepath.Join(e.dir, "bad.json")
		os.WriteFile(p, []byte(spec), 0o644)
		state := filepath.Join(e.state, "fresh-"+strings.ReplaceAll(name, " ", "-"))
		c := e.cmd("--headless", "-C", e.ws, p, "--", "true")
		c.Env = append(c.Env, "XDG_STATE_HOME="+state)
		var errb bytes.Buffer
		c.Stderr = &errb
		err := c.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 {
			t.Errorf("%s: want exit 2, got %v (%s)", name, err, errb.String())
		}
		if !strings.Contains(errb.String(), `"x"`) && name != "dup name" {
			t.Errorf("%s: message does not name the hypothesis: %s", name, errb.String())
		}
		if _, err := os.Stat(state); !os.IsNotExist(err) {
			t.Errorf("%s: state dir written on a refused spec", name)
		}
	}
	if _, _, code := e.shadow("--headless", "-C", e.ws, filepath.Join(e.dir, "bad.json")); code != 2 {
		t.Errorf("no command: exit %d", code)
	}
}

func TestE2EParallelHypothesesOverlap(t *testing.T) {
	e := newEnv(t)
	stamps := filepath.Join(e.dir, "stamps")
	os.Mkdir(stamps, 0o777)
	var hyps []any
	for _, n := range []string{"a", "b", "c"} {
		hyps = append(hyps, map[string]any{"name": n, "edits": []any{map[string]any{"path": "name.txt", "content": n}}})
	}
	spec := e.spec(map[string]any{"hypotheses": hyps})
	// Each waits (at most 10 s) until all three have started, instead of
	// a fixed 0.6 s that three sandbox starts outlasted at load 35: run
	// one after another, the first ends before the others start.
	script := `n=$(cat name.txt); date +%s.%N > ` + stamps + `/$n.start; i=0; ` +
		`while [ "$(ls ` + stamps + ` | grep -c start)" -lt 3 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; ` +
		`date +%s.%N > ` + stamps + `/$n.end`
	start := time.Now()
	// The stamps are state the hypotheses share: the host's /tmp (--tmp
	// shared), not each one's own.
	if out, stderr, code := e.shadow("--headless", "-j", "3", "--tmp", "shared", "-C", e.ws, spec, "--", "sh", "-c", script); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	read := func(n string) float64 {
		b, _ := os.ReadFile(filepath.Join(stamps, n))
		f, _ := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		return f
	}
	latestStart, earliestEnd := 0.0, 1e18
	for _, n := range []string{"a", "b", "c"} {
		latestStart = max(latestStart, read(n+".start"))
		earliestEnd = min(earliestEnd, read(n+".end"))
	}
	if latestStart >= earliestEnd {
		t.Errorf("hypotheses did not overlap: last start %.3f, first end %.3f (took %v)", latestStart, earliestEnd, time.Since(start))
	}
}

func TestE2EApplyWritesWinnerAndRefusesConflict(t *testing.T) {
	e := newEnv(t)
	e.write("v.txt", "bad\n", 0o755)
	spec := e.spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}},
	}})
	// A conflicting edit lands while the hypothesis runs: nothing is applied.
	c := e.cmd("--headless", "--events", "--apply", "-C", e.ws, spec, "--", "sh", "-c", "sleep 1; "+checkScript)
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	var last engine.Event
	for sc.Scan() {
		var ev engine.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("bad event line %q: %v", sc.Text(), err)
		}
		if ev.Kind == engine.KindHypStarted {
			e.write("v.txt", "user edit\n", 0o755)
		}
		last = ev
	}
	err := c.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("refused apply: want exit 1, got %v", err)
	}
	if last.Kind != engine.KindRunFinished || last.Report == nil || last.Report.ApplyError == "" || len(last.Report.Applied) != 0 {
		t.Fatalf("last event: %+v", last)
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "v.txt")); string(b) != "user edit\n" {
		t.Errorf("user's edit clobbered: %q", b)
	}
	// Without a conflict the winner is written, mode kept.
	e.write("v.txt", "bad\n", 0o755)
	out, stderr, code := e.shadow("--headless", "--apply", "-C", e.ws, spec, "--", "sh", "-c", checkScript)
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "v.txt")); string(b) != "good\n" {
		t.Errorf("winner not applied: %q", b)
	}
	if fi, _ := os.Stat(filepath.Join(e.ws, "v.txt")); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode not kept: %v", fi.Mode())
	}
}

func TestE2ETimeoutAndInterrupt(t *testing.T) {
	e := newEnv(t)
	spec := e.spec(map[string]any{"hypotheses": []any{map[string]any{"name": "slow"}}})
	marker := "321." + strconv.Itoa(os.Getpid())
	out, _, code := e.shadow("--headless", "--json", "--timeout", "500ms", "-C", e.ws, spec, "--", "sh", "-c", "sleep "+marker+" & sleep "+marker)
	if code != 1 || byName(e.report(out))["slow"].Status != "timed_out" {
		t.Fatalf("timeout: exit %d\n%s", code, out)
	}
	waitGone(t, marker)

	// Ctrl-C: the run is cancelled, children end, sandboxes are removed.
	c := e.cmd("--headless", "--json", "-C", e.ws, spec, "--", "sh", "-c", "sleep "+marker+"1")
	var stdout bytes.Buffer
	c.Stdout = &stdout
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitPresent(t, marker+"1")
	c.Process.Signal(syscall.SIGINT)
	c.Wait()
	if rc := c.ProcessState.ExitCode(); rc != 130 {
		t.Errorf("exit code %d after SIGINT, want 130", rc)
	}
	if r := e.report(stdout.String()); !r.Cancelled || r.Hypotheses[0].Status != "cancelled" {
		t.Errorf("after SIGINT: cancelled=%v status=%s", r.Cancelled, r.Hypotheses[0].Status)
	}
	waitGone(t, marker+"1")
	if left, _ := os.ReadDir(filepath.Join(e.state, "shadow", "sandboxes")); len(left) != 0 {
		t.Errorf("sandbox dirs left after Ctrl-C: %v", left)
	}

	// kill -9 of shadow itself: PR_SET_PDEATHSIG ends the namespace. The
	// killed run leaves its upper/work dirs (work/work is mode 000, which
	// TempDir's cleanup cannot enter as a non-root user): shadow gc's job.
	t.Cleanup(func() { fsutil.RemoveTree(filepath.Join(e.state, "shadow", "sandboxes")) })
	c = e.cmd("--headless", "-C", e.ws, spec, "--", "sh", "-c", "sleep "+marker+"2")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitPresent(t, marker+"2")
	c.Process.Kill()
	c.Wait()
	waitGone(t, marker+"2")
}

func procsWith(marker string) []string {
	var found []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, _ := os.ReadFile(p)
		// Only the sleep itself: shadow's own command line holds the marker too.
		if strings.HasPrefix(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), marker) {
			found = append(found, p)
		}
	}
	return found
}

func waitPresent(t *testing.T, marker string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if len(procsWith("sleep "+marker)) > 0 {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("process %q never started", marker)
}

func waitGone(t *testing.T, marker string) {
	t.Helper()
	for i := 0; i < 120; i++ {
		if len(procsWith("sleep "+marker)) == 0 {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("processes %v outlived the run", procsWith("sleep "+marker))
}

func TestE2EIsolationNeedsOverlay(t *testing.T) {
	e := newEnv(t)
	e.write("v.txt", "bad\n", 0o644)
	spec := e.spec(map[string]any{"hypotheses": []any{map[string]any{"name": "a"}}})
	for _, flag := range []string{"--net=isolated", "--tmp=private", "--freeze", "--keep"} {
		c := e.cmd("--headless", "--mode", "inplace", flag, "-C", e.ws, spec, "--", "sh", "-c", "echo RAN > /dev/stderr")
		c.Env = append(c.Env, "SHADOW_TEST_NO_USERNS=1")
		var errb bytes.Buffer
		c.Stderr = &errb
		err := c.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			t.Errorf("%s in in-place mode: want exit 3, got %v\n%s", flag, err, errb.String())
		}
		if strings.Contains(errb.String(), "RAN") || !strings.Contains(errb.String(), "needs overlay mode") {
			t.Errorf("%s: %s", flag, errb.String())
		}
	}
}

// A state dir inside the checkout (a workspace at $HOME) must not make
// every run stale with shadow's own records.
func TestE2EStateDirInsideWorkspaceIsNotStale(t *testing.T) {
	e := newEnv(t)
	e.write("v.txt", "good\n", 0o644)
	spec := e.spec(map[string]any{"hypotheses": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}})
	c := e.cmd("--headless", "--json", "-C", e.ws, spec, "--", "sh", "-c", checkScript)
	c.Env = append(c.Env, "XDG_STATE_HOME="+filepath.Join(e.ws, ".local", "state"))
	var out bytes.Buffer
	c.Stdout = &out
	if err := c.Run(); err != nil {
		t.Fatal(err, out.String())
	}
	if r := e.report(out.String()); r.Stale {
		t.Errorf("stale from shadow's own records: %v", r.StalePaths)
	}
	t.Cleanup(func() { fsutil.RemoveTree(filepath.Join(e.ws, ".local")) })
}

// shadow demo: the built-in fixture, end to end with go test -json, the
// text report on a non-terminal stdout, the fix as the winner.
func TestE2EDemo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the demo runs go test: go is not on PATH")
	}
	e := newEnv(t)
	out, stderr, code := e.shadow("demo")
	if code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"5 hypothesis(es), overlay mode", "winner: plus", "-\treturn a - b\n+\treturn a + b", "fixes 2, breaks 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo report lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Split(out, "\n"); len(lines) < 2 || !strings.Contains(lines[1], "plus") || !strings.Contains(lines[1], "<- winner") {
		t.Errorf("first row is not plus as winner:\n%s", out)
	}
}
