//go:build linux

package run

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/test/e2e"
)

// A spec of 200,000 edits takes seconds to read and resolve even linearly
// (before, resolution was quadratic: 50,000 edits took 253 s, and SIGTERM
// was ignored while it ran). SIGTERM or SIGINT a second into it: shadow
// exits 130 within two seconds, says it was interrupted, and wrote
// nothing (no record, the checkout as it was).
func TestE2ESignalDuringSpecResolutionExits130WritingNothing(t *testing.T) {
	e := e2e.NewPlainEnv(t)
	e.Write("a.txt", "a\n", 0o644)
	var b bytes.Buffer
	b.WriteString(`{"hypotheses": [{"name": "big", "edits": [`)
	for i := 0; i < 200000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"path": "d%d/f%d.txt", "content": "x\n"}`, i%100, i)
	}
	b.WriteString(`]}]}`)
	spec := filepath.Join(e.Dir, "big.json")
	if err := os.WriteFile(spec, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		c := e.Cmd("--headless", "--json", "-C", e.WS, spec, "--", "true")
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		// Into the resolution, not before shadow's handler exists: the
		// test binary's start takes over a second of a loaded machine
		// under -race, so wait until shadow has used twice the CPU a
		// start costs (resolving 200,000 edits takes far more).
		waitCPU(t, c.Process.Pid, 2*startCPU(t, e)+100*time.Millisecond)
		sent := time.Now()
		c.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(5 * time.Second):
			c.Process.Kill()
			<-done
			t.Fatalf("%v: still resolving 5 s after the signal", sig)
		}
		took := time.Since(sent)
		ee, _ := err.(*exec.ExitError)
		// --json's error document, not a report.
		if ee == nil || ee.ExitCode() != 130 || !strings.Contains(errb.String(), "interrupted") || strings.Contains(out.String(), "hypotheses") {
			t.Errorf("%v: %v after %v, stdout %q, stderr %q; want exit 130, interrupted, no report", sig, err, took, out.String(), errb.String())
		}
		if took > 2*time.Second {
			t.Errorf("%v: exit took %v", sig, took)
		}
	}
	// Nothing written: no run recorded, the checkout as it was.
	if out, _, _ := e.Shadow("log", "--json", "-C", e.WS); strings.Contains(out, `"run"`) {
		t.Errorf("a run was recorded: %s", out)
	}
	entries, _ := os.ReadDir(e.WS)
	if len(entries) != 1 {
		t.Errorf("the checkout holds %d entries, want a.txt alone", len(entries))
	}
}

// startCPU is the CPU time a shadow start costs here: a run of --help.
func startCPU(t *testing.T, e *e2e.Env) time.Duration {
	t.Helper()
	c := e.Cmd("--help")
	if err := c.Run(); err != nil {
		t.Fatalf("shadow --help: %v", err)
	}
	u := c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	return u
}

// waitCPU waits until process pid has used at least d of CPU (proc(5):
// utime and stime, fields 14 and 15 of /proc/PID/stat, in USER_HZ ticks).
func waitCPU(t *testing.T, pid int, d time.Duration) {
	t.Helper()
	for i := 0; i < 600; i++ {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatalf("shadow ended before its CPU reached %v: %v", d, err)
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		ut, _ := strconv.Atoi(f[11])
		st, _ := strconv.Atoi(f[12])
		if time.Duration(ut+st)*10*time.Millisecond >= d {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("shadow's CPU never reached %v in 30 s", d)
}
