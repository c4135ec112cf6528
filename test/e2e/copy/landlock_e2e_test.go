//go:build linux

package copy

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/test/e2e"
)

// Copy and in-place modes sealed by Landlock (docs/modes.md, "copy" and
// "inplace"), end to end
// through the binary where namespaces are really forbidden (the jail:
// bubblewrap --disable-userns; Docker's namespace rules under seccomp), as
// root and as the unprivileged user. One hostile hypothesis tries every
// route out; each must fail where Landlock is present, and the hypothesis
// says which got through (BREACH lines, exit 1), besides what the test
// checks from outside.

// landlockABI is the kernel's Landlock ABI, asked the way the probe does
// (landlock_create_ruleset's version query); 0 without Landlock.
func landlockABI() int {
	const sysLandlockCreateRuleset = 444 // the same number on every architecture
	v, _, e := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, 1)
	if e != 0 {
		return 0
	}
	return int(v)
}

// hostileRoutes is the hostile hypothesis's command: each route prints
// BREACH:<route> when it gets through. $SHADOW_E2E_* name the targets.
const hostileRoutes = `
b() { echo "BREACH:$1"; breach=1; }
breach=0
helper=$PPID
shadow=$(awk '{print $4}' /proc/$helper/stat)
# the checkout by its absolute path
# (named in two parts: copy mode points environment paths naming the
# workspace at the copy)
[ "$SHADOW_E2E_INPLACE" = 1 ] || { echo pwned > "$SHADOW_E2E_TOP/proj/a.txt" 2>/dev/null && b checkout; }
# the state dir: a journal forged, every record rewritten, a probe verdict planted
mkdir -p "$XDG_STATE_HOME/shadow/forged" 2>/dev/null && b state-mkdir
echo forged > "$XDG_STATE_HOME/shadow/inplace-journal" 2>/dev/null && b journal
for f in $(find "$XDG_STATE_HOME" -name report.json -o -name 'integrity*' -o -name 'probe*' 2>/dev/null); do
  [ -f "$f" ] && { echo '{}' >> "$f" 2>/dev/null && b "record:$f"; }
done
# a sibling's copy
for d in "$XDG_STATE_HOME"/shadow/sandboxes/copy-*/*/; do
  case "$PWD/" in "$(dirname "$d")/"*) continue;; esac
  [ -d "$d" ] && { echo pwned > "$d/sibling-pwned" 2>/dev/null && b "sibling:$d"; }
done
# $HOME's rc files, /tmp, /dev/shm
echo 'echo evil' >> "$HOME/.bashrc" 2>/dev/null && b bashrc
echo x > /tmp/shadow-e2e-landlock-$$ 2>/dev/null && { rm -f /tmp/shadow-e2e-landlock-$$; b tmp; }
echo x > /dev/shm/shadow-e2e-landlock-$$ 2>/dev/null && { rm -f /dev/shm/shadow-e2e-landlock-$$; b shm; }
# a server's abstract unix socket (tmux, D-Bus), and a pathname one
python3 - "$SHADOW_E2E_ABSTRACT" <<'EOF' && b abstract-socket
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(b"\0" + sys.argv[1].encode())
except OSError:
    sys.exit(1)
EOF
python3 - "$SHADOW_E2E_PATHSOCK" <<'EOF' && b path-socket
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError:
    sys.exit(1)
EOF
# the user's real tmux server: typing into its shell
if [ -n "$SHADOW_E2E_TMUX" ]; then
  tmux -S "$SHADOW_E2E_TMUX" send-keys -t victim "touch $SHADOW_E2E_TMUX.typed" Enter 2>/dev/null && b tmux
fi
# the Docker daemon's socket, where there is one
[ -S /var/run/docker.sock ] && python3 - <<'EOF' && b docker-sock
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("/var/run/docker.sock")
except OSError:
    sys.exit(1)
EOF
# shadow's descriptors, ptrace, signals
python3 - "$shadow" <<'EOF' && b proc-fd
import os, sys
try:
    os.open("/proc/%s/fd/1" % sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
except OSError:
    sys.exit(1)
EOF
python3 - "$shadow" <<'EOF' && b ptrace
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
pid = int(sys.argv[1])
if libc.ptrace(16, pid, 0, 0) != 0:  # PTRACE_ATTACH
    sys.exit(1)
libc.waitpid(pid, None, 0x40000000)
libc.ptrace(17, pid, 0, 0)  # PTRACE_DETACH
EOF
kill -0 $shadow 2>/dev/null && b signal-shadow
kill -0 $helper 2>/dev/null && b signal-helper
exit $breach
`

type sealCase struct {
	how  string // "jail" or "seccomp"
	root bool   // run shadow as root (else as the unprivileged user)
}

func sealCases() []sealCase {
	var out []sealCase
	for _, how := range copyModes() {
		out = append(out, sealCase{how, false})
		if os.Geteuid() == 0 {
			out = append(out, sealCase{how, true})
		}
	}
	return out
}

func (c sealCase) name() string {
	if c.root {
		return c.how + "/root"
	}
	return c.how + "/user"
}

func newSealEnv(t *testing.T, c sealCase) *copyEnv {
	e := newCopyEnv(t, c.how)
	if c.root {
		e.cred = nil
	}
	if landlockABI() == 0 {
		t.Skip("the kernel offers no Landlock (copy and in-place modes then guard against accidents only)")
	}
	return e
}

// listen starts a unix socket server outside every sandbox (a tmux or
// D-Bus server) and counts the connections it gets.
func listen(t *testing.T, addr string) *atomic.Int32 {
	t.Helper()
	l, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return &n
}

// startTmux starts a real tmux server on socket path, as the user shadow
// runs as (tmux refuses clients of another uid), with a session named
// victim; "" where tmux is missing.
func startTmux(t *testing.T, e *copyEnv, path string) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		return ""
	}
	c := exec.Command("tmux", "-S", path, "new-session", "-d", "-s", "victim", "sh")
	c.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + e.home, "TERM=xterm"}
	c.SysProcAttr = &syscall.SysProcAttr{Credential: e.cred}
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		k := exec.Command("tmux", "-S", path, "kill-server")
		k.SysProcAttr = &syscall.SysProcAttr{Credential: e.cred}
		_ = k.Run()
	})
	return path
}

// fileStates maps each file under dir to its content, for a before/after
// comparison.
func fileStates(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			m[p] = string(b)
		}
		return nil
	})
	return m
}

// TestE2ELandlockSealsCopyMode: a hostile hypothesis in copy mode, beside
// a victim that checks its own copy afterwards, reaches nothing outside
// its copy: not the checkout, the state dir (records, journal, probe
// verdict), the victim's copy, ~/.bashrc, /tmp, /dev/shm, an abstract
// socket's server, shadow's descriptors; it can neither ptrace nor signal
// shadow or its helper. The report says what sealed it. Today's build
// (copy mode unsealed) fails every route.
func TestE2ELandlockSealsCopyMode(t *testing.T) {
	e2e.Parallel(t)
	for _, c := range sealCases() {
		t.Run(c.name(), func(t *testing.T) {
			e := newSealEnv(t, c)
			e.write("a.txt", "original\n")
			if err := os.WriteFile(filepath.Join(e.home, ".bashrc"), []byte("# rc\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			e.own()
			// A first run leaves a record and a probe verdict to attack.
			first := e.spec("first.json", map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}}})
			if out, stderr, code := e.run("--headless", "--mode", "copy", first, "--", "true"); code != 0 {
				t.Fatalf("first run: exit %d\n%s\n%s", code, out, stderr)
			}
			before := fileStates(t, e.state)
			ws := e2e.Tree(t, e.ws)
			abstract := "shadow-e2e-tmux-" + filepath.Base(e.top)
			absConns := listen(t, "@"+abstract)
			sockDir := filepath.Join(e.top, "x")
			_ = os.Mkdir(sockDir, 0o777)
			_ = os.Chmod(sockDir, 0o777)
			pathSock := filepath.Join(sockDir, "tmux-default")
			pathConns := listen(t, pathSock)
			_ = os.Chmod(pathSock, 0o777)
			tmuxSock := startTmux(t, e, filepath.Join(sockDir, "tmux-real"))
			spec := e.spec("hostile.json", map[string]any{
				"hypotheses": []any{
					map[string]any{"name": "victim", "edits": []any{map[string]any{"path": "b.txt", "content": "v\n"}}},
					map[string]any{"name": "hostile", "edits": []any{map[string]any{"path": "h.txt", "content": "h\n"}}},
				},
				"env": map[string]string{"SHADOW_E2E_TOP": e.top, "SHADOW_E2E_ABSTRACT": abstract,
					"SHADOW_E2E_PATHSOCK": pathSock, "SHADOW_E2E_TMUX": tmuxSock},
			})
			out, stderr, code := e.run("--headless", "--json", "--mode", "copy", "-j", "2", spec, "--", "sh", "-c",
				"if [ -e h.txt ]; then\n"+hostileRoutes+"\nelse sleep 3; test ! -e sibling-pwned; fi")
			var r struct {
				Mode       string
				Seal       string
				Hypotheses []struct {
					Name, Status, Seal string
					OutputTail         string `json:"output_tail"`
				}
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("exit %d: %v\n%s\n%s", code, err, out, stderr)
			}
			for _, h := range r.Hypotheses {
				if h.Status != "passed" {
					t.Errorf("%s %s (a route got through, or the victim's copy was written):\n%s", h.Name, h.Status, h.OutputTail)
				}
				if !strings.HasPrefix(h.Seal, "landlock abi ") {
					t.Errorf("%s: seal %q", h.Name, h.Seal)
				}
			}
			if r.Mode != "copy" || !strings.HasPrefix(r.Seal, "landlock abi ") {
				t.Errorf("mode %q seal %q: want mode copy, sealed by landlock", r.Mode, r.Seal)
			}
			if got := e2e.Tree(t, e.ws); got != ws {
				t.Error("the checkout changed")
			}
			after := fileStates(t, e.state)
			for p, b := range before {
				if after[p] != b {
					t.Errorf("the state dir's %s changed", p)
				}
			}
			if _, err := os.Stat(filepath.Join(e.state, "shadow", "forged")); err == nil {
				t.Error("a directory was made in the state dir")
			}
			if b, _ := os.ReadFile(filepath.Join(e.home, ".bashrc")); string(b) != "# rc\n" {
				t.Errorf("~/.bashrc: %q", b)
			}
			if n := absConns.Load(); n != 0 {
				t.Errorf("the abstract socket's server got %d connection(s)", n)
			}
			if n := pathConns.Load(); n != 0 {
				t.Errorf("the pathname socket's server got %d connection(s)", n)
			}
			if _, err := os.Stat(tmuxSock + ".typed"); tmuxSock != "" && err == nil {
				t.Error("the hypothesis typed into the user's tmux")
			}
			e.noCopies()
		})
	}
}

// TestE2ELandlockSealsInplaceMode: in place, the command writes the
// checkout (restored afterwards) and nothing else: not the state dir that
// holds its journal and the integrity key, not ~/.bashrc, not /tmp; and it
// can neither ptrace nor signal shadow.
func TestE2ELandlockSealsInplaceMode(t *testing.T) {
	e2e.Parallel(t)
	for _, c := range sealCases() {
		t.Run(c.name(), func(t *testing.T) {
			e := newSealEnv(t, c)
			e.write("a.txt", "original\n")
			if err := os.WriteFile(filepath.Join(e.home, ".bashrc"), []byte("# rc\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			e.own()
			first := e.spec("first.json", map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}}})
			if out, stderr, code := e.run("--headless", "--mode", "inplace", first, "--", "true"); code != 0 {
				t.Fatalf("first run: exit %d\n%s\n%s", code, out, stderr)
			}
			before := fileStates(t, e.state)
			ws := fileStates(t, e.ws)
			spec := e.spec("hostile.json", map[string]any{
				"hypotheses": []any{map[string]any{"name": "hostile", "edits": []any{map[string]any{"path": "h.txt", "content": "h\n"}}}},
				"env":        map[string]string{"SHADOW_E2E_TOP": e.top, "SHADOW_E2E_INPLACE": "1", "SHADOW_E2E_ABSTRACT": "shadow-e2e-none"},
			})
			out, stderr, code := e.run("--headless", "--json", "--mode", "inplace", spec, "--", "sh", "-c",
				"echo build > out.o\n"+hostileRoutes)
			var r struct {
				Seal       string
				Hypotheses []struct {
					Name, Status string
					OutputTail   string `json:"output_tail"`
				}
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("exit %d: %v\n%s\n%s", code, err, out, stderr)
			}
			for _, h := range r.Hypotheses {
				if h.Status != "passed" {
					t.Errorf("%s %s (a route got through, or the checkout was not writable):\n%s", h.Name, h.Status, h.OutputTail)
				}
			}
			if !strings.HasPrefix(r.Seal, "landlock abi ") {
				t.Errorf("seal %q", r.Seal)
			}
			// What the command wrote in the checkout stays (the mode's
			// rule); the hypothesis's own file is gone again.
			if b, _ := os.ReadFile(filepath.Join(e.ws, "out.o")); string(b) != "build\n" {
				t.Errorf("the command's build output in the checkout: %q", b)
			}
			_ = os.Remove(filepath.Join(e.ws, "out.o"))
			got := fileStates(t, e.ws)
			for p, b := range ws {
				if got[p] != b {
					t.Errorf("the checkout's %s was not restored", p)
				}
			}
			for p := range got {
				if _, ok := ws[p]; !ok {
					t.Errorf("%s left in the checkout", p)
				}
			}
			after := fileStates(t, e.state)
			for p, b := range before {
				if after[p] != b {
					t.Errorf("the state dir's %s changed", p)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(e.home, ".bashrc")); string(b) != "# rc\n" {
				t.Errorf("~/.bashrc: %q", b)
			}
		})
	}
}

// TestE2ERequireSeal: --require-seal runs where Landlock seals, and where
// a seccomp profile forbids Landlock's system calls (Docker before 23.0)
// it refuses with exit 3 before anything runs, naming the cause.
func TestE2ERequireSeal(t *testing.T) {
	e2e.Parallel(t)
	e := newSealEnv(t, sealCase{how: "seccomp"})
	e.write("a.txt", "original\n")
	spec := e.spec("spec.json", map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}}})
	if out, stderr, code := e.run("--headless", "--mode", "copy", "--require-seal", spec, "--", "true"); code != 0 {
		t.Fatalf("with Landlock: exit %d\n%s\n%s", code, out, stderr)
	}
	c := e.cmd("--headless", "--mode", "copy", "--require-seal", spec, "--", "true")
	c.Env = append(c.Env, e2e.SeccompNoLandlockEnv+"=1")
	b, err := c.CombinedOutput()
	var ee *exec.ExitError
	if !errorsAs(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(string(b), "seccomp") {
		t.Fatalf("without Landlock: %v\n%s", err, b)
	}
	// The probe says plainly what copy mode guards against, either way.
	for _, noLandlock := range []bool{false, true} {
		c := e.cmd("probe", "--json")
		if noLandlock {
			c.Env = append(c.Env, e2e.SeccompNoLandlockEnv+"=1")
		}
		out, err := c.Output()
		var v struct {
			Mode, Protection string
			Landlock         *struct {
				ABI int
				Why string
			}
		}
		if err != nil || json.Unmarshal(out, &v) != nil || v.Landlock == nil {
			t.Fatalf("probe (no landlock %v): %v\n%s", noLandlock, err, out)
		}
		switch {
		case noLandlock && (v.Landlock.ABI != 0 || !strings.Contains(v.Landlock.Why, "seccomp") || !strings.Contains(v.Protection, "accidents only")):
			t.Errorf("probe without Landlock: %s", out)
		case !noLandlock && (v.Landlock.ABI == 0 || strings.Contains(v.Protection, "accidents only")):
			t.Errorf("probe with Landlock: %s", out)
		}
	}
}

func errorsAs(err error, ee **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*ee = e
	}
	return ok
}

var _ = time.Second
