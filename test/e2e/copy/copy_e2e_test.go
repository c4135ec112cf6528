//go:build linux

package copy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/internal/sandbox/sandboxtest"
	"github.com/shadow-dev/shadow/test/e2e"
)

type copyEnv struct {
	t                                  *testing.T
	how                                string // "jail" or "seccomp"
	top, ws, home, state, dir, bin, py string
	cred                               *syscall.Credential
}

func newCopyEnv(t *testing.T, how string) *copyEnv {
	t.Helper()
	e2e.Parallel(t)
	if how == "jail" {
		if _, err := exec.LookPath("bwrap"); err != nil || sandboxtest.JailTool() == "" {
			t.Skip("needs bubblewrap (apt-get install bubblewrap) (the jail is test/tools/jail; SHADOW_JAIL overrides it)")
		}
	}
	top, err := os.MkdirTemp("", "shadow-copy-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	e := &copyEnv{t: t, how: how, top: top, ws: filepath.Join(top, "proj"), home: filepath.Join(top, "home"),
		state: filepath.Join(top, "state"), dir: filepath.Join(top, "specs"), bin: filepath.Join(top, "bin", "shadow")}
	for _, d := range []string{e.ws, e.home, e.state, e.dir, filepath.Dir(e.bin)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chmod(top, 0o755))
	// The test binary is shadow (SHADOW_E2E_MAIN=1); a hard link (a copy
	// across file systems) in a place the unprivileged user can read, and
	// a name of its own, by which shadowPID tells this test's shadow from
	// the parallel tests'. A link, because a copy is a file open for
	// writing while parallel tests fork: a child that has not yet exec'd
	// holds it, and exec(2) of the copy then fails with ETXTBSY.
	exe, _ := os.Executable()
	if err := os.Link(exe, e.bin); err != nil {
		must(copyExec(exe, e.bin))
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("shadowci")
		if err != nil {
			t.Skip("as root, the test runs shadow as user shadowci: useradd -m shadowci")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		e.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	return e
}

func copyExec(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func (e *copyEnv) write(rel, content string) {
	e.t.Helper()
	p := filepath.Join(e.ws, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *copyEnv) spec(name string, v any) string {
	e.t.Helper()
	b, _ := json.Marshal(v)
	p := filepath.Join(e.dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// own gives everything under top to the unprivileged user.
func (e *copyEnv) own() {
	if e.cred == nil {
		return
	}
	_ = filepath.Walk(e.top, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			_ = os.Lchown(p, int(e.cred.Uid), int(e.cred.Gid))
		}
		return nil
	})
}

// cmd is shadow ARGS as the unprivileged user, in the jail or under the
// seccomp filter, in the workspace.
func (e *copyEnv) cmd(args ...string) *exec.Cmd {
	e.own()
	argv := append([]string{e.bin}, args...)
	if e.how == "jail" {
		argv = append([]string{sandboxtest.JailTool(), "--"}, argv...)
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.Dir = e.ws
	c.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + e.home, "XDG_STATE_HOME=" + e.state,
		"TMPDIR=" + e.top, "SHADOW_E2E_MAIN=1", "E2E_LOG=" + filepath.Join(e.top, "log", "times.log")}
	if e.how == "seccomp" {
		c.Env = append(c.Env, e2e.SeccompE2EEnv+"=1")
	}
	c.SysProcAttr = &syscall.SysProcAttr{Credential: e.cred, Setpgid: true}
	return c
}

func (e *copyEnv) run(args ...string) (string, string, int) {
	e.t.Helper()
	var out, errb bytes.Buffer
	var err error
	// Where the binary had to be copied (the unprivileged user may not
	// hard-link the test binary root owns: fs.protected_hardlinks), a
	// parallel test's child that has not exec'd yet may still hold the
	// copy open for writing: exec fails with ETXTBSY until it has.
	for try := 0; ; try++ {
		c := e.cmd(args...)
		out.Reset()
		errb.Reset()
		c.Stdout, c.Stderr = &out, &errb
		c.WaitDelay = 10 * time.Second
		if err = c.Run(); !errors.Is(err, syscall.ETXTBSY) || try == 50 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// noCopies fails if any copy (or a copies directory beside the checkout)
// is left.
func (e *copyEnv) noCopies() {
	e.t.Helper()
	_ = filepath.Walk(e.top, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() && (strings.HasPrefix(fi.Name(), "copy-") || fi.Name() == ".shadow-copies") {
			e.t.Errorf("left behind: %s", p)
			return filepath.SkipDir
		}
		return nil
	})
}

func copyModes() []string { return []string{"jail", "seccomp"} }

// TestE2ECopyProbe: the probe names the blocking layer and says auto
// runs copy mode.
func TestE2ECopyProbe(t *testing.T) {
	e2e.Parallel(t)
	for _, how := range copyModes() {
		t.Run(how, func(t *testing.T) {
			e := newCopyEnv(t, how)
			out, stderr, code := e.run("probe", "--json")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			var v struct{ Mode, Layer, Errno string }
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			want := map[string][2]string{"jail": {"user namespace limit", "ENOSPC"}, "seccomp": {"seccomp", "EPERM"}}[how]
			if v.Mode != "copy" || v.Layer != want[0] || v.Errno != want[1] {
				t.Fatalf("probe: mode %q layer %q errno %q, want copy %q %q\n%s", v.Mode, v.Layer, v.Errno, want[0], want[1], out)
			}
		})
	}
}

// TestE2ECopyPytest: --mode auto picks copy mode, the hypotheses overlap
// in time, the fix wins, a setsid daemon a command started is gone when
// the run ends, the checkout (ignored files and .git included) is
// byte-identical and no copy is left.
func TestE2ECopyPytest(t *testing.T) {
	e2e.Parallel(t)
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs /usr/bin/python3 with pytest (apt-get install python3-pytest)")
	}
	for _, how := range copyModes() {
		t.Run(how, func(t *testing.T) {
			e := newCopyEnv(t, how)
			e.write("calc.py", "def add(a, b):\n    return a - b\n")
			e.write("test_calc.py", `import os, time
from calc import add

def test_add():
    with open(os.environ["E2E_LOG"], "a") as f:
        f.write("start %f\n" % time.time())
    time.sleep(1.5)
    with open(os.environ["E2E_LOG"], "a") as f:
        f.write("end %f\n" % time.time())
    assert add(2, 3) == 5
`)
			e.write(".gitignore", "build/\n")
			e.write("build/artifact.bin", "ignored build output\n")
			if _, err := exec.LookPath("git"); err == nil {
				for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
					g := exec.Command("git", args...)
					g.Dir, g.Env = e.ws, append(os.Environ(), "HOME="+e.home)
					if out, err := g.CombinedOutput(); err != nil {
						t.Fatalf("git %v: %v %s", args, err, out)
					}
				}
			}
			e.own()
			before := e2e.Tree(t, e.ws)
			spec := e.spec("spec.json", map[string]any{"hypotheses": []any{
				map[string]any{"name": "baseline"},
				map[string]any{"name": "mul", "edits": []any{map[string]any{"path": "calc.py", "content": "def add(a, b):\n    return a * b\n"}}},
				map[string]any{"name": "plus", "edits": []any{map[string]any{"path": "calc.py", "content": "def add(a, b):\n    return a + b\n"}}},
			}})
			marker := fmt.Sprintf("977.%d%d", os.Getpid(), time.Now().UnixNano()%100000)
			// The log is outside the copies: a --writable directory, which
			// copy mode's Landlock seal lets the command write.
			logDir := filepath.Join(e.top, "log")
			if err := os.Mkdir(logDir, 0o777); err != nil {
				t.Fatal(err)
			}
			e.own()
			// --no-warm: all three at once (with a cold home layer the
			// baseline would run alone first: docs/modes.md).
			out, stderr, code := e.run("--headless", "--json", "-j", "3", "--no-warm", "--writable", logDir, spec, "--", "sh", "-c",
				"setsid sleep "+marker+" </dev/null >/dev/null 2>&1 & exec /usr/bin/python3 -m pytest -q -p no:cacheprovider")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			var r struct {
				Mode      string
				Winner    *string
				CopyMS    *int64 `json:"copy_ms"`
				CopyBytes *int64 `json:"copy_bytes"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if r.Mode != "copy" || r.Winner == nil || *r.Winner != "plus" {
				t.Fatalf("mode %q winner %v\n%s\n%s", r.Mode, r.Winner, out, stderr)
			}
			if r.CopyMS == nil || r.CopyBytes == nil || *r.CopyBytes <= 0 {
				t.Errorf("copy_ms %v copy_bytes %v", r.CopyMS, r.CopyBytes)
			}
			if !strings.Contains(stderr, "copy mode") {
				t.Errorf("no notice of copy mode:\n%s", stderr)
			}
			if left := e2e.ProcsWith("sleep " + marker); len(left) > 0 {
				t.Errorf("the setsid daemon outlived the run: %v", left)
			}
			assertOverlap(t, filepath.Join(e.top, "log", "times.log"), 3)
			if after := e2e.Tree(t, e.ws); after != before {
				t.Errorf("the checkout changed")
			}
			e.noCopies()
		})
	}
}

// assertOverlap: every hypothesis started before the first one ended.
func assertOverlap(t *testing.T, log string, n int) {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var starts, ends []float64
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 {
			continue
		}
		v, _ := strconv.ParseFloat(f[1], 64)
		if f[0] == "start" {
			starts = append(starts, v)
		} else {
			ends = append(ends, v)
		}
	}
	if len(starts) != n || len(ends) != n {
		t.Fatalf("want %d starts and ends, log:\n%s", n, b)
	}
	lastStart, firstEnd := starts[0], ends[0]
	for _, s := range starts {
		lastStart = max(lastStart, s)
	}
	for _, x := range ends {
		firstEnd = min(firstEnd, x)
	}
	if lastStart >= firstEnd {
		t.Errorf("hypotheses ran one after another (last start %.2f, first end %.2f)", lastStart, firstEnd)
	}
}

// TestE2ECopyVitest: a vitest project with its node_modules (copied into
// every hypothesis's copy, and reported as copy cost).
func TestE2ECopyVitest(t *testing.T) {
	e2e.Parallel(t)
	fixture, _ := filepath.Abs(filepath.Join("testdata", "runners", "js", "node_modules"))
	if _, err := os.Stat(filepath.Join(fixture, "vitest")); err != nil {
		t.Skip("run `npm ci --prefix testdata/runners/js` first (.ci/run does)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	for _, how := range copyModes() {
		t.Run(how, func(t *testing.T) {
			e := newCopyEnv(t, how)
			js := "function add(a, b) { return a - b }\nfunction sub(a, b) { return a - b }\nmodule.exports = { add, sub }\n"
			e.write("calc.js", js)
			e.write("calc.test.js", "import { test, expect } from 'vitest';\nimport { add, sub } from './calc';\ntest('add', () => expect(add(2, 3)).toBe(5));\ntest('sub', () => expect(sub(5, 3)).toBe(2));\n")
			if out, err := exec.Command("cp", "-a", fixture, filepath.Join(e.ws, "node_modules")).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v %s", err, out)
			}
			e.own()
			before := e2e.Tree(t, e.ws)
			spec := e.spec("spec.json", map[string]any{"hypotheses": []any{
				map[string]any{"name": "baseline"},
				map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "calc.js", "content": strings.Replace(js, "a - b", "a + b", 1)}}},
			}})
			out, stderr, code := e.run("--headless", "--json", spec, "--", "node", "node_modules/vitest/vitest.mjs", "run", "--reporter=verbose")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			var r struct {
				Mode      string
				Winner    *string
				CopyBytes *int64 `json:"copy_bytes"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if r.Mode != "copy" || r.Winner == nil || *r.Winner != "fix" {
				t.Fatalf("mode %q winner %v\n%s\n%s", r.Mode, r.Winner, out, stderr)
			}
			if r.CopyBytes == nil || *r.CopyBytes < 1<<20 {
				t.Errorf("copy_bytes %v: node_modules was not copied", r.CopyBytes)
			}
			if after := e2e.Tree(t, e.ws); after != before {
				t.Errorf("the checkout changed")
			}
			e.noCopies()
		})
	}
}

// TestE2ECopyKill9ThenGC: kill -9 of shadow mid-run ends the commands'
// processes (the helpers get SIGTERM on shadow's death) and leaves the
// copies, which `shadow gc` then removes.
func TestE2ECopyKill9ThenGC(t *testing.T) {
	e2e.Parallel(t)
	for _, how := range copyModes() {
		t.Run(how, func(t *testing.T) {
			e := newCopyEnv(t, how)
			e.write("v.txt", "x\n")
			before := e2e.Tree(t, e.ws)
			spec := e.spec("spec.json", map[string]any{"hypotheses": []any{map[string]any{"name": "a"}, map[string]any{"name": "b", "edits": []any{map[string]any{"path": "v.txt", "content": "y\n"}}}}})
			marker := fmt.Sprintf("988.%d%d", os.Getpid(), time.Now().UnixNano()%100000)
			c := e.cmd("--headless", spec, "--", "sh", "-c", "setsid sleep "+marker+" </dev/null >/dev/null 2>&1 & sleep "+marker+"1")
			c.WaitDelay = 10 * time.Second
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			e2e.WaitPresent(t, marker)
			pid := shadowPID(e.bin)
			if pid == 0 {
				_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
				t.Fatal("shadow's process not found")
			}
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = c.Wait()
			for i := 0; i < 200 && len(e2e.ProcsWith("sleep "+marker)) > 0; i++ {
				time.Sleep(50 * time.Millisecond)
			}
			if left := e2e.ProcsWith("sleep " + marker); len(left) > 0 {
				t.Fatalf("processes outlived shadow: %v", left)
			}
			left := 0
			_ = filepath.Walk(e.state, func(p string, fi os.FileInfo, err error) error {
				if err == nil && fi.IsDir() && strings.HasPrefix(fi.Name(), "copy-") {
					left++
				}
				return nil
			})
			if left == 0 {
				t.Fatal("no copy left for gc: did the run reach the copies?")
			}
			var out, stderr string
			var code int
			// A helper may still be exiting: gc keeps a copy until it is.
			for i := 0; i < 20; i++ {
				out, stderr, code = e.run("gc")
				if !strings.Contains(out, "kept") {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			if code != 0 || !strings.Contains(out, "removed") {
				t.Fatalf("gc exit %d\n%s\n%s", code, out, stderr)
			}
			e.noCopies()
			if after := e2e.Tree(t, e.ws); after != before {
				t.Errorf("the checkout changed")
			}
		})
	}
}

// shadowPID finds the shadow process (not one of its helpers) running bin.
func shadowPID(bin string) int {
	for i := 0; i < 100; i++ {
		procs, _ := filepath.Glob("/proc/[0-9]*")
		for _, p := range procs {
			exe, err := os.Readlink(filepath.Join(p, "exe"))
			if err != nil || exe != bin {
				continue
			}
			cmdline, _ := os.ReadFile(filepath.Join(p, "cmdline"))
			if bytes.HasPrefix(cmdline, []byte("shadow-reaper")) {
				continue
			}
			pid, _ := strconv.Atoi(filepath.Base(p))
			return pid
		}
		time.Sleep(50 * time.Millisecond)
	}
	return 0
}
