//go:build linux

package run

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
	"github.com/shadow-dev/shadow/test/e2e"
)

func TestE2EWorkspaceUntouchedAndRanked(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("v.txt", "bad\n", 0o644)
	e.Write("old.txt", "old\n", 0o644)
	e.Write("target/debug/warm.bin", "warm cache\n", 0o644)
	before := e2e.Tree(t, e.WS)
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}},
		map[string]any{"name": "gone", "delete": []string{"old.txt"}, "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}},
	}})
	// The command also rebuilds the "warm" directory, as a build would.
	out, stderr, code := e.Shadow("--headless", "--json", "-C", e.WS, spec, "--", "sh", "-c",
		"echo rebuilt > target/debug/warm.bin; test ! -e old.txt && echo OLD-GONE; "+e2e.CheckScript)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	r := e.Report(out)
	if r.Schema != "shadow.report/v1" || r.Mode != "overlay" || r.Winner == nil || *r.Winner != "fix" {
		t.Fatalf("report: schema %q mode %q winner %v", r.Schema, r.Mode, r.Winner)
	}
	h := e2e.ByName(r)
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
	if after := e2e.Tree(t, e.WS); after != before {
		t.Errorf("workspace changed by the run:\n%s\n---\n%s", before, after)
	}
	if _, err := os.Stat(h["fix"].Log); err != nil {
		t.Errorf("log file: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Join(e.State, "shadow", "sandboxes")); len(left) != 0 {
		t.Errorf("sandbox dirs left: %v", left)
	}
}

func TestE2ESpecErrorsExit2AndWriteNothing(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("a.txt", "a\n", 0o644)
	cases := map[string]string{
		"unknown field": `{"hypotheses":[{"name":"x","bogus":1}]}`,
		"absolute path": `{"hypotheses":[{"name":"x","edits":[{"path":"/etc/passwd","content":""}]}]}`,
		"dup name":      `{"hypotheses":[{"name":"x"},{"name":"x"}]}`,
		"bad patch":     `{"hypotheses":[{"name":"x","patch":"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-zzz\n+b\n"}]}`,
	}
	for name, spec := range cases {
		p := filepath.Join(e.Dir, "bad.json")
		os.WriteFile(p, []byte(spec), 0o644)
		state := filepath.Join(e.State, "fresh-"+strings.ReplaceAll(name, " ", "-"))
		c := e.Cmd("--headless", "-C", e.WS, p, "--", "true")
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
	if _, _, code := e.Shadow("--headless", "-C", e.WS, filepath.Join(e.Dir, "bad.json")); code != 2 {
		t.Errorf("no command: exit %d", code)
	}
}

func TestE2EParallelHypothesesOverlap(t *testing.T) {
	e := e2e.NewEnv(t)
	stamps := filepath.Join(e.Dir, "stamps")
	os.Mkdir(stamps, 0o777)
	var hyps []any
	for _, n := range []string{"a", "b", "c"} {
		hyps = append(hyps, map[string]any{"name": n, "edits": []any{map[string]any{"path": "name.txt", "content": n}}})
	}
	spec := e.Spec(map[string]any{"hypotheses": hyps})
	// Each waits (at most 10 s) until all three have started, instead of
	// a fixed 0.6 s that three sandbox starts outlasted at load 35: run
	// one after another, the first ends before the others start.
	script := `n=$(cat name.txt); date +%s.%N > ` + stamps + `/$n.start; i=0; ` +
		`while [ "$(ls ` + stamps + ` | grep -c start)" -lt 3 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; ` +
		`date +%s.%N > ` + stamps + `/$n.end`
	start := time.Now()
	// The stamps are state the hypotheses share: the host's /tmp (--tmp
	// shared), not each one's own.
	if out, stderr, code := e.Shadow("--headless", "-j", "3", "--tmp", "shared", "-C", e.WS, spec, "--", "sh", "-c", script); code != 0 {
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
	e := e2e.NewEnv(t)
	e.Write("v.txt", "bad\n", 0o755)
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}},
	}})
	// A conflicting edit lands while the hypothesis runs: nothing is applied.
	c := e.Cmd("--headless", "--events", "--apply", "-C", e.WS, spec, "--", "sh", "-c", "sleep 1; "+e2e.CheckScript)
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
			e.Write("v.txt", "user edit\n", 0o755)
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
	if b, _ := os.ReadFile(filepath.Join(e.WS, "v.txt")); string(b) != "user edit\n" {
		t.Errorf("user's edit clobbered: %q", b)
	}
	// Without a conflict the winner is written, mode kept.
	e.Write("v.txt", "bad\n", 0o755)
	out, stderr, code := e.Shadow("--headless", "--apply", "-C", e.WS, spec, "--", "sh", "-c", e2e.CheckScript)
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(e.WS, "v.txt")); string(b) != "good\n" {
		t.Errorf("winner not applied: %q", b)
	}
	if fi, _ := os.Stat(filepath.Join(e.WS, "v.txt")); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode not kept: %v", fi.Mode())
	}
}

func TestE2ETimeoutAndInterrupt(t *testing.T) {
	e := e2e.NewEnv(t)
	spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "slow"}}})
	marker := "321." + strconv.Itoa(os.Getpid())
	out, _, code := e.Shadow("--headless", "--json", "--timeout", "500ms", "-C", e.WS, spec, "--", "sh", "-c", "sleep "+marker+" & sleep "+marker)
	if code != 1 || e2e.ByName(e.Report(out))["slow"].Status != "timed_out" {
		t.Fatalf("timeout: exit %d\n%s", code, out)
	}
	e2e.WaitGone(t, marker)

	// Ctrl-C: the run is cancelled, children end, sandboxes are removed.
	c := e.Cmd("--headless", "--json", "-C", e.WS, spec, "--", "sh", "-c", "sleep "+marker+"1")
	var stdout bytes.Buffer
	c.Stdout = &stdout
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	e2e.WaitPresent(t, marker+"1")
	c.Process.Signal(syscall.SIGINT)
	c.Wait()
	if rc := c.ProcessState.ExitCode(); rc != 130 {
		t.Errorf("exit code %d after SIGINT, want 130", rc)
	}
	if r := e.Report(stdout.String()); !r.Cancelled || r.Hypotheses[0].Status != "cancelled" {
		t.Errorf("after SIGINT: cancelled=%v status=%s", r.Cancelled, r.Hypotheses[0].Status)
	}
	e2e.WaitGone(t, marker+"1")
	if left, _ := os.ReadDir(filepath.Join(e.State, "shadow", "sandboxes")); len(left) != 0 {
		t.Errorf("sandbox dirs left after Ctrl-C: %v", left)
	}

	// kill -9 of shadow itself: PR_SET_PDEATHSIG ends the namespace. The
	// killed run leaves its upper/work dirs (work/work is mode 000, which
	// TempDir's cleanup cannot enter as a non-root user): shadow gc's job.
	t.Cleanup(func() { fsutil.RemoveTree(filepath.Join(e.State, "shadow", "sandboxes")) })
	c = e.Cmd("--headless", "-C", e.WS, spec, "--", "sh", "-c", "sleep "+marker+"2")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	e2e.WaitPresent(t, marker+"2")
	c.Process.Kill()
	c.Wait()
	e2e.WaitGone(t, marker+"2")
}

func TestE2EIsolationNeedsOverlay(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("v.txt", "bad\n", 0o644)
	spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "a"}}})
	for _, flag := range []string{"--net=isolated", "--tmp=private", "--freeze", "--keep"} {
		c := e.Cmd("--headless", "--mode", "inplace", flag, "-C", e.WS, spec, "--", "sh", "-c", "echo RAN > /dev/stderr")
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
	e := e2e.NewEnv(t)
	e.Write("v.txt", "good\n", 0o644)
	spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}})
	c := e.Cmd("--headless", "--json", "-C", e.WS, spec, "--", "sh", "-c", e2e.CheckScript)
	c.Env = append(c.Env, "XDG_STATE_HOME="+filepath.Join(e.WS, ".local", "state"))
	var out bytes.Buffer
	c.Stdout = &out
	if err := c.Run(); err != nil {
		t.Fatal(err, out.String())
	}
	if r := e.Report(out.String()); r.Stale {
		t.Errorf("stale from shadow's own records: %v", r.StalePaths)
	}
	t.Cleanup(func() { fsutil.RemoveTree(filepath.Join(e.WS, ".local")) })
}

// shadow demo: the built-in fixture, end to end with go test -json, the
// text report on a non-terminal stdout, the fix as the winner.
func TestE2EDemo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the demo runs go test: go is not on PATH")
	}
	e := e2e.NewEnv(t)
	out, stderr, code := e.Shadow("demo")
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
