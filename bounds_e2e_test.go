//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Edit sources that are not regular files, or too large, end the run with
// exit 2 at once, before anything ran or was written. The old build hung on
// a FIFO forever and read /dev/zero until memory ran out; the bound is
// loose because CI machines are shared (timing is not what is tested).
func TestE2EEditSourcesRefusedFast(t *testing.T) {
	e := newInplaceEnv(t)
	fifo := filepath.Join(e.dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(e.dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(e.dir, "big"), make([]byte, 3<<20), 0o644)
	for _, c := range []struct{ name, file string }{{"fifo", "fifo"}, {"dev-zero", "/dev/zero"}, {"directory", "sub"}, {"oversized", "big"}} {
		t.Run(c.name, func(t *testing.T) {
			spec := e.spec(map[string]any{"hypotheses": []any{map[string]any{"name": "h", "edits": []any{map[string]any{"path": "v.txt", "file": c.file}}}}})
			start := time.Now()
			_, stderr, code, _ := e.runEnv(noUserNS, "--headless", "--max-edit-size", "2M", "-C", e.ws, spec, "--", "true")
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %v", d)
			}
			if code != 2 || !strings.Contains(stderr, "edits[0].file") {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if runs, _ := filepath.Glob(filepath.Join(e.state, "shadow", "workspaces", "*", "runs", "*")); len(runs) > 0 {
				t.Fatalf("a run was recorded: %v", runs)
			}
		})
	}
}

// The state dir on a full filesystem (a tiny tmpfs as XDG_STATE_HOME):
// the result says the output log could not be written, and show says so
// instead of "(no output)".
func TestE2EFullStateDirIsReported(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	e := newInplaceEnv(t)
	if err := syscall.Mount("tmpfs", e.state, "tmpfs", 0, "size=160k"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	defer syscall.Unmount(e.state, syscall.MNT_DETACH)
	spec := e.spec(map[string]any{"hypotheses": []any{map[string]any{"name": "loud"}}})
	out, stderr, _, _ := e.runEnv(noUserNS, "--headless", "--json", "--mode", "inplace", "-C", e.ws, spec, "--", "sh", "-c",
		`head -c 400000 /dev/zero | tr '\0' x | fold -w 100; echo LAST LINE`)
	r := e.report(out)
	res := byName(r)["loud"]
	if res == nil || res.Error == nil || !strings.Contains(*res.Error, "output log") || !strings.Contains(*res.Error, "no space") {
		t.Fatalf("the result does not report the failed log write: %+v\n%s", res, stderr)
	}
	show, stderr, code, _ := e.runEnv(nil, "show", "-C", e.ws, r.Run+"/loud")
	if code != 0 || strings.Contains(show, "(no output)") || !strings.Contains(show, "no space") {
		t.Fatalf("show: exit %d\n%q\n%s", code, show, stderr)
	}
}

// A hypothesis printing far more than --max-output: the stored log is
// capped and keeps the failure buried in the flood and the last line.
func TestE2EOutputLogIsCapped(t *testing.T) {
	e := newInplaceEnv(t)
	spec := e.spec(map[string]any{"hypotheses": []any{map[string]any{"name": "loud"}}})
	// 128K and about 9 times as much output: the same proportions as 1M
	// and 10M, at a cost the race detector can afford (every byte goes
	// through the capped log, the tail and the parsers).
	const capSize = 128 << 10
	out, stderr, _, _ := e.runEnv(noUserNS, "--headless", "--json", "--mode", "inplace", "--max-output", "128K", "-C", e.ws, spec, "--", "sh", "-c",
		`yes 'noise noise noise' | head -n 40000; echo '--- FAIL: TestBuried (0.00s)'; yes 'more noise' | head -n 40000; echo LAST LINE`)
	r := e.report(out)
	res := byName(r)["loud"]
	fi, err := os.Stat(res.Log)
	if err != nil || fi.Size() > capSize+4096 {
		t.Fatalf("log %s: %v %d bytes\n%s", res.Log, err, fi.Size(), stderr)
	}
	b, _ := os.ReadFile(res.Log)
	for _, want := range []string{"--- FAIL: TestBuried", "LAST LINE", "bytes of output dropped here"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("log misses %q", want)
		}
	}
	if res.OutputBytes < 8*capSize {
		t.Errorf("output_bytes %d", res.OutputBytes)
	}
}

// A --no-record run leaves its logs in a scratch dir, which gc removes
// once the run's process is gone.
func TestE2ENoRecordScratchIsSwept(t *testing.T) {
	e := newInplaceEnv(t)
	tmp := t.TempDir()
	spec := e.spec(map[string]any{"hypotheses": []any{map[string]any{"name": "h"}}})
	extra := append(append([]string{}, noUserNS...), "TMPDIR="+tmp)
	out, stderr, _, _ := e.runEnv(extra, "--headless", "--json", "--no-record", "--mode", "inplace", "-C", e.ws, spec, "--", "echo", "hi")
	r := e.report(out)
	if _, err := os.Stat(byName(r)["h"].Log); err != nil {
		t.Fatalf("no log: %v\n%s", err, stderr)
	}
	c := e.cmd("gc")
	c.Env = append(c.Env, "TMPDIR="+tmp)
	if b, err := c.CombinedOutput(); err != nil {
		t.Fatalf("gc: %v\n%s", err, b)
	}
	left, _ := exec.Command("find", tmp, "-name", "output.log").Output()
	if len(left) > 0 {
		t.Fatalf("left after gc: %s", left)
	}
}
