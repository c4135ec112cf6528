//go:build linux

package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/test/e2e"
)

// Edit sources that are not regular files, or too large, end the run with
// exit 2 at once, before anything ran or was written. The old build hung on
// a FIFO forever and read /dev/zero until memory ran out; the bound is
// loose because CI machines are shared (timing is not what is tested).
func TestE2EEditSourcesRefusedFast(t *testing.T) {
	e := e2e.NewInplaceEnv(t)
	fifo := filepath.Join(e.Dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(e.Dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(e.Dir, "big"), make([]byte, 3<<20), 0o644)
	for _, c := range []struct{ name, file string }{{"fifo", "fifo"}, {"dev-zero", "/dev/zero"}, {"directory", "sub"}, {"oversized", "big"}} {
		t.Run(c.name, func(t *testing.T) {
			spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "h", "edits": []any{map[string]any{"path": "v.txt", "file": c.file}}}}})
			start := time.Now()
			_, stderr, code, _ := e.RunEnv(e2e.NoUserNS, "--headless", "--max-edit-size", "2M", "-C", e.WS, spec, "--", "true")
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %v", d)
			}
			if code != 2 || !strings.Contains(stderr, "edits[0].file") {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if runs, _ := filepath.Glob(filepath.Join(e.State, "shadow", "workspaces", "*", "runs", "*")); len(runs) > 0 {
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
	e := e2e.NewInplaceEnv(t)
	if err := syscall.Mount("tmpfs", e.State, "tmpfs", 0, "size=160k"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	defer syscall.Unmount(e.State, syscall.MNT_DETACH)
	spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "loud"}}})
	out, stderr, _, _ := e.RunEnv(e2e.NoUserNS, "--headless", "--json", "--mode", "inplace", "-C", e.WS, spec, "--", "sh", "-c",
		`head -c 400000 /dev/zero | tr '\0' x | fold -w 100; echo LAST LINE`)
	r := e.Report(out)
	res := e2e.ByName(r)["loud"]
	if res == nil || res.Error == nil || !strings.Contains(*res.Error, "output log") || !strings.Contains(*res.Error, "no space") {
		t.Fatalf("the result does not report the failed log write: %+v\n%s", res, stderr)
	}
	show, stderr, code, _ := e.RunEnv(nil, "show", "-C", e.WS, r.Run+"/loud")
	if code != 0 || strings.Contains(show, "(no output)") || !strings.Contains(show, "no space") {
		t.Fatalf("show: exit %d\n%q\n%s", code, show, stderr)
	}
}

// A hypothesis printing far more than --max-output: the stored log is
// capped and keeps the failure buried in the flood and the last line.
func TestE2EOutputLogIsCapped(t *testing.T) {
	e := e2e.NewInplaceEnv(t)
	spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "loud"}}})
	// 128K and about 9 times as much output: the same proportions as 1M
	// and 10M, at a cost the race detector can afford (every byte goes
	// through the capped log, the tail and the parsers).
	const capSize = 128 << 10
	out, stderr, _, _ := e.RunEnv(e2e.NoUserNS, "--headless", "--json", "--mode", "inplace", "--max-output", "128K", "-C", e.WS, spec, "--", "sh", "-c",
		`yes 'noise noise noise' | head -n 40000; echo '--- FAIL: TestBuried (0.00s)'; yes 'more noise' | head -n 40000; echo LAST LINE`)
	r := e.Report(out)
	res := e2e.ByName(r)["loud"]
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
	e := e2e.NewInplaceEnv(t)
	tmp := t.TempDir()
	spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "h"}}})
	extra := append(append([]string{}, e2e.NoUserNS...), "TMPDIR="+tmp)
	out, stderr, _, _ := e.RunEnv(extra, "--headless", "--json", "--no-record", "--mode", "inplace", "-C", e.WS, spec, "--", "echo", "hi")
	r := e.Report(out)
	if _, err := os.Stat(e2e.ByName(r)["h"].Log); err != nil {
		t.Fatalf("no log: %v\n%s", err, stderr)
	}
	c := e.Cmd("gc")
	c.Env = append(c.Env, "TMPDIR="+tmp)
	if b, err := c.CombinedOutput(); err != nil {
		t.Fatalf("gc: %v\n%s", err, b)
	}
	left, _ := exec.Command("find", tmp, "-name", "output.log").Output()
	if len(left) > 0 {
		t.Fatalf("left after gc: %s", left)
	}
}
