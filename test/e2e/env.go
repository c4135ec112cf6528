//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/overlay"
)

type Env struct {
	T     *testing.T
	WS    string
	State string
	Dir   string // holds specs, outside the workspace
	// ExtraEnv is added to the binary's environment: the tests run in
	// parallel (parallel), so t.Setenv, which changes the test process's
	// own environment, cannot be used.
	ExtraEnv []string
}

func NewEnv(t *testing.T) *Env {
	t.Helper()
	Parallel(t)
	e := &Env{T: t, WS: t.TempDir(), State: t.TempDir(), Dir: t.TempDir()}
	if v := overlay.Probe(filepath.Join(e.State, "probe")); v.Mode != "overlay" {
		t.Skipf("overlay unavailable: %s", v.Reason)
	}
	return e
}

func (e *Env) Write(rel, content string, mode os.FileMode) {
	e.T.Helper()
	p := filepath.Join(e.WS, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		e.T.Fatal(err)
	}
}

func (e *Env) Spec(v any) string {
	e.T.Helper()
	b, _ := json.Marshal(v)
	p := filepath.Join(e.Dir, "spec.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		e.T.Fatal(err)
	}
	return p
}

func (e *Env) Cmd(args ...string) *exec.Cmd {
	exe, _ := os.Executable()
	c := exec.Command(exe, args...)
	c.Dir = e.Dir
	c.Env = append(append(os.Environ(), "SHADOW_E2E_MAIN=1", "XDG_STATE_HOME="+e.State), e.ExtraEnv...)
	return c
}

// Shadow runs the binary to completion and returns stdout, stderr and the
// exit code.
func (e *Env) Shadow(args ...string) (string, string, int) {
	e.T.Helper()
	c := e.Cmd(args...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.T.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func (e *Env) Report(stdout string) *engine.Report {
	e.T.Helper()
	var r engine.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		e.T.Fatalf("report is not JSON: %v\n%s", err, stdout)
	}
	return &r
}

func ByName(r *engine.Report) map[string]*engine.Result {
	m := map[string]*engine.Result{}
	for _, h := range r.Hypotheses {
		m[h.Name] = h
	}
	return m
}

// Tree records every path with mode, size, mtime and content.
func Tree(t *testing.T, root string) string {
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

const CheckScript = `test "$(cat v.txt)" = good && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }`

func ProcsWith(marker string) []string {
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

func WaitPresent(t *testing.T, marker string) {
	t.Helper()
	// Up to 30 s: a sandbox starts in milliseconds, but CI runs these
	// tests under -race on a machine other tests keep busy.
	for i := 0; i < 1200; i++ {
		if len(ProcsWith("sleep "+marker)) > 0 {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("process %q never started", marker)
}

func WaitGone(t *testing.T, marker string) {
	t.Helper()
	for i := 0; i < 120; i++ {
		if len(ProcsWith("sleep "+marker)) == 0 {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("processes %v outlived the run", ProcsWith("sleep "+marker))
}
