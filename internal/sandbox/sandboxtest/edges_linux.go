package sandboxtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/engine"
)

// The seal's edges, routes every mode's command tries (overlay through
// runHostile, copy and in-place through RunSealed): the user's terminals,
// unix sockets bound after the command started or by a relative path,
// and the IPC objects and keys that outlive a run.
func runEdges(t *testing.T, s *suite) {
	t.Run("TerminalKeylogger", s.terminalKeylogger)
	t.Run("TmuxBoundLaterByRelativePath", s.tmuxLater)
	t.Run("IPCAndKeysOutliveTheRun", s.ipcLeftovers)
}

// terminalKeylogger: the user's terminals (every pts and tmux pane the
// user owns is a file the user can open) are a keylogger's and an escape
// sequence writer's. The test opens a pty of its own, raw and without
// echo, and types into it from outside; the command opens every terminal
// device it can find (by /dev/pts, /dev/tty* and the links in /proc/*/fd),
// reads, and writes a window title and an OSC 52 clipboard into the
// test's. Afterwards everything typed must still wait on the pty, and
// nothing written into it.
func (s *suite) terminalKeylogger(t *testing.T) {
	py := python3(t)
	master, slave, err := openPty()
	if err != nil {
		t.Fatalf("no pty: %v", err)
	}
	defer master.Close()
	defer slave.Close()
	tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	// Raw, no echo: what the master reads is only what someone wrote into
	// the terminal, and what is typed stays queued until someone reads it.
	tio.Lflag &^= unix.ECHO | unix.ICANON | unix.ISIG | unix.IEXTEN
	tio.Iflag &^= unix.ICRNL | unix.IXON
	tio.Oflag &^= unix.OPOST
	if err := unix.IoctlSetTermios(int(slave.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	pts := slave.Name()
	typed := "hunter2-typed-by-the-user\n"
	if _, err := master.WriteString(typed); err != nil {
		t.Fatal(err)
	}
	f := s.setup(t)
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	// The user keeps typing while the command runs.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var more strings.Builder
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			k := fmt.Sprintf("key%d ", i)
			if _, err := master.WriteString(k); err == nil {
				more.WriteString(k)
			}
		}
	}()
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "keylogger"}, py+` - '`+pts+`' <<'EOF'
import glob, os, sys, time
mine = sys.argv[1]
paths = set(glob.glob('/dev/pts/*') + glob.glob('/dev/tty*') + glob.glob('/dev/console') + [mine])
for l in glob.glob('/proc/[0-9]*/fd/*'):
    try:
        if os.readlink(l).startswith(('/dev/pts/', '/dev/tty', '/dev/console')):
            paths.add(l)
    except OSError:
        pass
print("TRIED", len(paths))
time.sleep(0.3)
for p in sorted(paths):
    if p.endswith('/ptmx'):
        continue  # a new pty of the command's own
    try:
        fd = os.open(p, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        try:
            fd = os.open(p, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:
            continue
    print("BREACH-opened", p, os.path.realpath(p))
    if os.path.realpath(p) == mine:
        try:
            print("BREACH-read", repr(os.read(fd, 4096)))
        except OSError as e:
            print("read", e)
        try:
            os.write(fd, b"\x1b]0;PWNED\x07\x1b]52;c;cHduZWQ=\x07")
            print("BREACH-wrote")
        except OSError as e:
            print("write", e)
    os.close(fd)
EOF`)
	close(stop)
	wg.Wait()
	if !strings.Contains(out, "TRIED") {
		t.Fatalf("the keylogger did not run:\n%s", out)
	}
	if strings.Contains(out, "BREACH") {
		t.Errorf("the command opened a terminal that is not its own:\n%s", out)
	}
	n, err := unix.IoctlGetInt(int(slave.Fd()), unix.TIOCINQ)
	if want := len(typed) + more.Len(); err != nil || n != want {
		t.Errorf("of the %d bytes typed into the user's terminal, %d are left (%v): the command read them", want, n, err)
	}
	mfd := int(master.Fd()) // Fd puts the file in blocking mode: once
	if err := unix.SetNonblock(mfd, true); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	if m, _ := unix.Read(mfd, buf); m > 0 {
		t.Errorf("the command wrote into the user's terminal: %q", buf[:m])
	}
	s.sealedClean(f, ws, state)
}

// outsideDir is a directory of the test's outside every place a sandbox
// makes private (/tmp, /var/tmp, /dev/shm, $HOME): /run/lock, which is
// world-writable (1777) on Debian and Ubuntu as the FHS has it, where a
// user's server could bind a socket the command sees through the
// read-only view.
func outsideDir(t *testing.T) string {
	for _, d := range []string{"/run/lock", "/var/lock"} {
		if dir, err := os.MkdirTemp(d, "shadow-sbt-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	t.Fatal("no world-writable directory outside /tmp, /var/tmp, /dev/shm and $HOME (/run/lock) for a socket the command must not reach")
	return ""
}

// tmuxLater: the user's tmux server bound with a relative path
// (tmux -S ./sock, which /proc/net/unix lists as "./sock") outside the
// places a sandbox makes private, and started only after the command
// did: a list of sockets taken at start misses it. The command waits for
// the socket and asks the server to write the checkout.
func (s *suite) tmuxLater(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is missing (apt-get install tmux): the route is a real tmux server")
	}
	f := s.setup(t)
	dir := outsideDir(t)
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	w := f.ws
	var out syncBuffer
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		_, err = f.sb.Run(context.Background(), f.job(engine.Hypothesis{Name: "tmux-later"}, `D='`+dir+`'
			echo STARTED
			i=0; while [ ! -S "$D/sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
			[ -S "$D/sock" ] && echo SAW-socket
			cd "$D" && tmux -S ./sock run-shell "echo pwned > '`+w+`/PWNED-rel'" 2>&1 && echo BREACH-relative
			tmux -S "$D/sock" run-shell "echo pwned > '`+w+`/PWNED-abs'; echo pwned > '$D/PWNED'" 2>&1 && echo BREACH-absolute
			true`, &out))
	}()
	for i := 0; i < 100 && !strings.Contains(out.String(), "STARTED"); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	tmux := exec.Command("tmux", "-S", "./sock", "-f", "/dev/null", "new-session", "-d", "-s", "s", "sleep 600")
	tmux.Dir, tmux.Env = dir, append(os.Environ(), "TMUX=")
	if b, err := tmux.CombinedOutput(); err != nil {
		t.Fatalf("cannot start a tmux server: %v: %s", err, b)
	}
	defer func() {
		k := exec.Command("tmux", "-S", "./sock", "kill-server")
		k.Dir = dir
		k.Run()
	}()
	<-done
	if err != nil {
		t.Fatalf("sandbox failed: %v\n%s", err, out.String())
	}
	time.Sleep(200 * time.Millisecond) // a run-shell the server accepted may still be writing
	got := out.String()
	if !strings.Contains(got, "SAW-socket") {
		t.Fatalf("the command never saw the socket (the route was not tried):\n%s", got)
	}
	if strings.Contains(got, "BREACH") {
		t.Errorf("the command reached the user's tmux:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Error("the user's tmux ran the command's shell command")
	}
	s.sealedClean(f, ws, state)
}

// ipcLeftovers: a SysV shared memory segment (with a SysV message queue
// and semaphore set beside it), a POSIX message queue and a key in the
// user's keyring outlive the command that made them unless the sandbox
// gives it an IPC namespace of its own or refuses the calls; a later
// sibling then reads them. The first hypothesis makes each under a name
// of this test's; the second, a sibling started after it, looks for each;
// afterwards none may be left on the machine.
func (s *suite) ipcLeftovers(t *testing.T) {
	py := python3(t)
	f := s.setup(t)
	key := 0x5ad00000 | os.Getpid()&0xfffff
	name := fmt.Sprintf("shadow-sbt-%d", os.Getpid())
	t.Cleanup(func() { removeIPC(key, name) })
	removeIPC(key, name)
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	prelude := py + ` - ` + fmt.Sprint(key) + ` '` + name + `' ` + fmt.Sprint(unix.SYS_ADD_KEY) + ` ` + fmt.Sprint(unix.SYS_KEYCTL) + ` <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
key, name, add_key, keyctl = int(sys.argv[1]), sys.argv[2].encode(), int(sys.argv[3]), int(sys.argv[4])
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.syscall.restype = ctypes.c_long
try:
    rt = ctypes.CDLL("librt.so.1", use_errno=True)
except OSError:
    rt = libc
IPC_CREAT, IPC_NOWAIT = 0o1000, 0o4000
class Msg(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 16)]
`
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "ipc-maker"}, prelude+`
print("TRIED-make")
i = libc.shmget(key, 1 << 20, IPC_CREAT | 0o666)
if i >= 0:
    a = libc.shmat(i, None, 0)
    if a not in (None, 2**64 - 1):
        ctypes.memmove(a, b"LEAK-shm", 8)
        print("MADE-shm")
i = libc.msgget(key, IPC_CREAT | 0o666)
if i >= 0 and libc.msgsnd(i, ctypes.byref(Msg(1, b"LEAK-msg")), 16, IPC_NOWAIT) == 0:
    print("MADE-msg")
if libc.semget(key, 1, IPC_CREAT | 0o666) >= 0:
    print("MADE-sem")
q = rt.mq_open(b"/" + name, os.O_CREAT | os.O_RDWR, 0o666, None)
if q >= 0 and rt.mq_send(q, b"LEAK-mq", 7, 0) == 0:
    print("MADE-mq")
if libc.syscall(add_key, b"user", name, b"LEAK-key", 8, -4) > 0:  # KEY_SPEC_USER_KEYRING
    print("MADE-user-key")
if libc.syscall(add_key, b"user", name + b"-s", b"LEAK-key", 8, -3) > 0:  # KEY_SPEC_SESSION_KEYRING
    print("MADE-session-key")
EOF`)
	if !strings.Contains(out, "TRIED-make") {
		t.Fatalf("the maker did not run:\n%s", out)
	}
	t.Logf("the maker: %s", strings.ReplaceAll(strings.TrimSpace(out), "\n", " "))
	_, out = f.run(context.Background(), engine.Hypothesis{Name: "ipc-reader"}, prelude+`
print("TRIED-read")
i = libc.shmget(key, 0, 0)
if i >= 0:
    a = libc.shmat(i, None, 0o10000)  # SHM_RDONLY
    print("BREACH-shm", a not in (None, 2**64 - 1) and ctypes.string_at(a, 8))
i = libc.msgget(key, 0)
if i >= 0:
    m = Msg()
    print("BREACH-msg", libc.msgrcv(i, ctypes.byref(m), 16, 0, IPC_NOWAIT) >= 0 and m.mtext)
if libc.semget(key, 0, 0) >= 0:
    print("BREACH-sem")
q = rt.mq_open(b"/" + name, os.O_RDONLY | os.O_NONBLOCK)
if q >= 0:
    print("BREACH-mq")
for ring, d in ((-4, name), (-3, name + b"-s")):
    if libc.syscall(keyctl, 10, ring, b"user", d, 0) > 0:  # KEYCTL_SEARCH
        print("BREACH-key", d)
EOF`)
	if !strings.Contains(out, "TRIED-read") {
		t.Fatalf("the reader did not run:\n%s", out)
	}
	if strings.Contains(out, "BREACH") {
		t.Errorf("a later sibling read what an earlier hypothesis left:\n%s", out)
	}
	if left := leftIPC(key, name); len(left) > 0 {
		t.Errorf("left on the machine after the run: %s", strings.Join(left, ", "))
	}
	s.sealedClean(f, ws, state)
}

// leftIPC lists which of the objects ipcLeftovers makes exist outside.
func leftIPC(key int, name string) []string {
	var left []string
	if _, err := unix.SysvShmGet(key, 0, 0); err == nil {
		left = append(left, "a SysV segment")
	}
	if _, _, e := unix.Syscall(unix.SYS_MSGGET, uintptr(key), 0, 0); e == 0 {
		left = append(left, "a SysV message queue")
	}
	if _, _, e := unix.Syscall(unix.SYS_SEMGET, uintptr(key), 0, 0); e == 0 {
		left = append(left, "a SysV semaphore set")
	}
	if q, err := mqOpen(name); err == nil {
		unix.Close(q)
		left = append(left, "a POSIX message queue")
	}
	for _, d := range []string{name, name + "-s"} {
		for _, ring := range []int{unix.KEY_SPEC_USER_KEYRING, unix.KEY_SPEC_SESSION_KEYRING} {
			if _, err := unix.KeyctlSearch(ring, "user", d, 0); err == nil {
				left = append(left, "a key "+d)
			}
		}
	}
	return left
}

// removeIPC removes what leftIPC finds.
func removeIPC(key int, name string) {
	if id, err := unix.SysvShmGet(key, 0, 0); err == nil {
		unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	}
	if id, _, e := unix.Syscall(unix.SYS_MSGGET, uintptr(key), 0, 0); e == 0 {
		unix.Syscall(unix.SYS_MSGCTL, id, unix.IPC_RMID, 0)
	}
	if id, _, e := unix.Syscall(unix.SYS_SEMGET, uintptr(key), 0, 0); e == 0 {
		unix.Syscall6(unix.SYS_SEMCTL, id, 0, unix.IPC_RMID, 0, 0, 0)
	}
	if p, err := unix.BytePtrFromString(name); err == nil {
		unix.Syscall(unix.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(p)), 0, 0)
	}
	for _, d := range []string{name, name + "-s"} {
		for _, ring := range []int{unix.KEY_SPEC_USER_KEYRING, unix.KEY_SPEC_SESSION_KEYRING} {
			if id, err := unix.KeyctlSearch(ring, "user", d, 0); err == nil {
				unix.KeyctlInt(unix.KEYCTL_INVALIDATE, id, 0, 0, 0)
			}
		}
	}
}

// mqOpen opens POSIX message queue /name read-only (mq_open(3) is the
// system call with the name's leading slash taken off).
func mqOpen(name string) (int, error) {
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		return -1, err
	}
	fd, _, e := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(p)), unix.O_RDONLY|unix.O_NONBLOCK, 0, 0, 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// sealedReader: a sealed command reads only its own copy, the checkout
// and what the whole machine may read: not a running sibling's copy (its
// fix), its TMPDIR or caches, nor shadow's state dir (the integrity key
// that signs records, the records themselves). The victim writes its fix
// and waits; the reader reads everything it finds under the sandboxes
// and state dirs, and the key by its path.
func (s *suite) sealedReader(t *testing.T) {
	f := s.setup(t)
	if err := os.WriteFile(filepath.Join(f.dirs.State, "integrity.key"), []byte(realKey), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	const secret = "SIBLINGS-SECRET-FIX"
	var wg sync.WaitGroup
	var readerOut string
	if s.p.Parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.run(context.Background(), engine.Hypothesis{Name: "victim", Files: []engine.File{file("fix.py", secret)}},
				`echo `+secret+` > "${TMPDIR:-/tmp}/fix.tmp"; sleep 2`)
		}()
		time.Sleep(500 * time.Millisecond)
	}
	_, readerOut = f.run(context.Background(), engine.Hypothesis{Name: "reader"}, `S='`+f.dirs.State+`'
		echo TRIED
		cat "$S/integrity.key" 2>/dev/null
		find "$S" "$(dirname "$S")" -type f 2>/dev/null | while read -r p; do
			case "$p" in "$PWD"/*) continue;; esac
			cat "$p" 2>/dev/null
		done
		true`)
	wg.Wait()
	if !strings.Contains(readerOut, "TRIED") {
		t.Fatalf("the reader did not run:\n%s", readerOut)
	}
	if strings.Contains(readerOut, secret) {
		t.Errorf("the command read a running sibling's fix:\n%s", readerOut)
	}
	if strings.Contains(readerOut, realKey) {
		t.Errorf("the command read shadow's integrity key:\n%s", readerOut)
	}
	s.sealedClean(f, ws, state)
}

// sealedMetadata: Landlock has no right for chmod, chown, utimensat or
// xattrs, so a sealed command could change the metadata of any file it
// owns by its path: the checkout's (a source file 644 -> 600; a build
// output touched so that the next make says "up to date"), shadow's
// integrity key. Nothing outside its writable places may change.
func (s *suite) sealedMetadata(t *testing.T) {
	f := s.setup(t)
	key := filepath.Join(f.dirs.State, "integrity.key")
	if err := os.WriteFile(key, []byte(realKey), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(key, old, old); err != nil {
		t.Fatal(err)
	}
	targets := []string{key}
	if !s.p.InCheckout {
		targets = append(targets, filepath.Join(f.ws, "calc.py"), filepath.Join(f.ws, "pkg"), filepath.Join(f.ws, "target/debug/cache.bin"))
	}
	type meta struct {
		mode  os.FileMode
		mtime time.Time
	}
	before := map[string]meta{}
	for _, p := range targets {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		before[p] = meta{fi.Mode(), fi.ModTime()}
	}
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	var script strings.Builder
	// Its own files' metadata stays its to change.
	script.WriteString(`echo TRIED
		o="$TMPDIR/own.txt"
		touch "$o" && chmod 600 "$o" && touch -d 2030-01-01 "$o" && chown "$(id -u)" "$o" &&
		` + python3(t) + ` -c 'import os, sys; o = sys.argv[1]; os.utime(o, (5, 5)); os.fchmod(os.open(o, os.O_RDONLY), 0o640); print("OWN-" + oct(os.stat(o).st_mode & 0o777), os.stat(o).st_mtime)' "$o"
		rm -f "$o"
		`)
	for _, p := range targets {
		fmt.Fprintf(&script, `p='%s'
		chmod 0640 "$p" 2>/dev/null && echo "BREACH-chmod $p"
		touch -d '2030-01-01' "$p" 2>/dev/null && echo "BREACH-touch $p"
		touch "$p" 2>/dev/null && echo "BREACH-touch-now $p"
		chown "$(id -u):$(id -g)" "$p" 2>/dev/null
		`, p)
	}
	script.WriteString(python3(t) + ` -c '
import os, sys
for p in sys.argv[1:]:
    for what, f in (("chmod", lambda: os.chmod(p, 0o600)), ("utime", lambda: os.utime(p, (0, 0))),
                    ("fchmod", lambda: os.fchmod(os.open(p, os.O_RDONLY), 0o604)),
                    ("futimens", lambda: os.utime(os.open(p, os.O_RDONLY), (1, 1))),
                    ("setxattr", lambda: os.setxattr(p, "user.shadow", b"x"))):
        try:
            f(); print("BREACH-" + what, p)
        except OSError:
            pass
' ` + strings.Join(quote(targets), " ") + "\ntrue")
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "metadata"}, script.String())
	if !strings.Contains(out, "TRIED") {
		t.Fatalf("the command did not run:\n%s", out)
	}
	if strings.Contains(out, "BREACH") {
		t.Errorf("the command changed metadata outside its writable places:\n%s", out)
	}
	if !strings.Contains(out, "OWN-0o640 5.0") {
		t.Errorf("the command could not change its own file's mode and times:\n%s", out)
	}
	for _, p := range targets {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if b := before[p]; fi.Mode() != b.mode || !fi.ModTime().Equal(b.mtime) {
			t.Errorf("%s: mode %v mtime %v, was %v %v", p, fi.Mode(), fi.ModTime(), b.mode, b.mtime)
		}
	}
	s.sealedClean(f, ws, state)
}
