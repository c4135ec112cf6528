//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/test/e2e"
)

// The seal's network, resources and planted-tool routes (docs/modes.md,
// "overlay": what the seal holds) through the binary, overlay mode, default
// flags.

func needPython3(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed (the hypotheses' client and server)")
	}
}

// Two correct fixes whose tests bind one fixed localhost port, at the
// same time: both pass (before, one failed with EADDRINUSE).
func TestE2ETwoHypothesesBindOneFixedPort(t *testing.T) {
	needPython3(t)
	e := e2e.NewEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	e.Write("server.py", fmt.Sprintf(`import socket, time
s = socket.socket()
s.bind(("127.0.0.1", %d))
s.listen()
print("1 passed, 0 failed", flush=True)
time.sleep(2)
`, port), 0o644)
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "a", "edits": []any{map[string]any{"path": "a.txt", "content": "a\n"}}},
		map[string]any{"name": "b", "edits": []any{map[string]any{"path": "b.txt", "content": "b\n"}}},
	}})
	out, errOut, code := e.Shadow("--json", "-C", e.WS, "-j", "2", "--mode", "overlay", spec, "--", "python3", "server.py")
	r := e.Report(out)
	for _, h := range r.Hypotheses {
		if h.Status != engine.StatusPassed {
			t.Errorf("%s binding 127.0.0.1:%d: %s (exit %d)\n%s", h.Name, port, h.Status, code, errOut)
		}
	}
}

// A service of the user's on the host's 127.0.0.1 is out of reach by
// default and reachable with --host-port (a database the suite needs).
func TestE2EHostServiceOnlyWithHostPort(t *testing.T) {
	needPython3(t)
	e := e2e.NewEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			fmt.Fprintln(c, "HOST-DB")
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	e.Write("client.py", fmt.Sprintf(`import socket, sys
c = socket.create_connection(("127.0.0.1", %d), timeout=3)
sys.exit(0 if c.recv(100).startswith(b"HOST-DB") else 1)
`, port), 0o644)
	spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "a"}}})
	out, _, _ := e.Shadow("--json", "-C", e.WS, "--mode", "overlay", spec, "--", "python3", "client.py")
	if h := e2e.ByName(e.Report(out))["a"]; h.Status == engine.StatusPassed {
		t.Errorf("the host's 127.0.0.1:%d was reachable without --host-port", port)
	}
	out, errOut, _ := e.Shadow("--json", "-C", e.WS, "--mode", "overlay", "--host-port", strconv.Itoa(port), spec, "--", "python3", "client.py")
	if h := e2e.ByName(e.Report(out))["a"]; h.Status != engine.StatusPassed {
		t.Errorf("--host-port %d: %s\n%s", port, h.Status, errOut)
	}
}

// git planted in a user-writable directory first in PATH (as
// ~/.local/bin is under Debian's ~/.profile), before the run and by a
// hypothesis during it: shadow never runs it, neither during the run nor
// at the start of the next one.
func TestE2EPlantedGitNeverRuns(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	if ok, why := trustedForTest(gitPath); !ok {
		t.Skipf("the machine's own git is not in a root-owned directory: %s", why)
	}
	e := e2e.NewEnv(t)
	home := t.TempDir()
	bin := filepath.Join(home, ".local", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "PLANTED-GIT-RAN")
	planted := "#!/bin/sh\necho ran >> " + marker + "\nexec " + gitPath + " \"$@\"\n"
	// Pre-planted: the user's own PATH has it first.
	preDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(preDir, "git"), []byte(planted), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init", "--allow-empty"}} {
		cmd := exec.Command(gitPath, c...)
		cmd.Dir = e.WS
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", c, err, out)
		}
	}
	e.Write("v.txt", "1\n", 0o644)
	e.ExtraEnv = append(e.ExtraEnv, "HOME="+home, "PATH="+preDir+":"+bin+":"+os.Getenv("PATH"))
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "planter", "edits": []any{map[string]any{"path": "plant.sh", "content": "cat > \"$HOME/.local/bin/git\" <<'EOF'\n" + planted + "EOF\nchmod +x \"$HOME/.local/bin/git\"\n"}}},
	}})
	for i := 0; i < 2; i++ {
		_, errOut, code := e.Shadow("--json", "-C", e.WS, "--mode", "overlay", "--baseline", spec, "--", "sh", "plant.sh")
		if code != 0 && code != 1 {
			t.Fatalf("run %d: exit %d\n%s", i, code, errOut)
		}
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("shadow ran a planted git (%d times)", strings.Count(string(b), "ran"))
	}
}

// trustedForTest is the rule shadow's own tools follow (a root-owned
// chain of directories), checked here without importing fsutil's
// unexported parts.
func trustedForTest(p string) (bool, string) {
	out, err := exec.Command("stat", "-L", "-c", "%u %a", filepath.Dir(p)).Output()
	if err != nil {
		return false, err.Error()
	}
	f := strings.Fields(string(out))
	return len(f) == 2 && f[0] == "0", string(out)
}

// --memory: a hypothesis filling memory is stopped at the cap while its
// sibling passes, and the report gives limits and a peak; where no memory
// cgroup can be written (an ordinary user without delegation) the run is
// refused (exit 3), never run uncapped.
func TestE2EMemoryCap(t *testing.T) {
	needPython3(t)
	e := e2e.NewEnv(t)
	e.Write("fill.py", `import os, sys, time
if os.path.exists("fill.txt"):
    b = bytearray(512 << 20)
    print("ALLOCATED", flush=True)
time.sleep(1)
print("1 passed, 0 failed")
`, 0o644)
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "filler", "edits": []any{map[string]any{"path": "fill.txt", "content": "x\n"}}},
		map[string]any{"name": "sibling", "edits": []any{map[string]any{"path": "s.txt", "content": "x\n"}}},
	}})
	out, errOut, code := e.Shadow("--json", "-C", e.WS, "-j", "2", "--mode", "overlay", "--memory", "128M", spec, "--", "python3", "fill.py")
	if !overlay.ProbeLimits().Memory {
		if code != 3 || !strings.Contains(errOut, "--memory") {
			t.Fatalf("--memory without a memory cgroup: want exit 3 naming --memory, got %d\n%s", code, errOut)
		}
		return
	}
	r := e2e.ByName(e.Report(out))
	if f := r["filler"]; f.Status == engine.StatusPassed || f.Limits == nil || f.Limits.MemoryBytes != 128<<20 {
		t.Errorf("filler: %s, limits %+v (exit %d)\n%s", f.Status, f.Limits, code, errOut)
	}
	s := r["sibling"]
	if s.Status != engine.StatusPassed || s.PeakMemoryBytes == nil || *s.PeakMemoryBytes <= 0 {
		t.Errorf("sibling: %s, peak %v\n%s", s.Status, s.PeakMemoryBytes, errOut)
	}
}
