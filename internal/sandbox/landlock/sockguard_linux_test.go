package landlock

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The socket guard (sockguard_linux.go) seen from a hostile command: the
// pathname sockets, abstract sockets and datagram addresses outside its
// Write directories are refused, its own keep working.

// childEnv makes the test binary, started sealed, run a hostile child
// (raceChild) instead of the tests.
const childEnv = "SHADOW_SOCKGUARD_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "race":
		os.Exit(raceChild(os.Args[1], os.Args[2]))
	case "connect":
		os.Exit(connectChild(os.Args[1], os.Args[2], os.Args[3]))
	case "signals":
		os.Exit(signalsChild())
	case "nogetfd":
		os.Exit(noGetfdChild())
	case "garbage":
		os.Exit(garbageChild(os.Args[1]))
	}
	os.Exit(m.Run())
}

// serve listens on addr (network "unix", "unixgram", or "unix" with a
// leading '@' for an abstract name) outside any sandbox and counts what
// reaches it.
func serve(t *testing.T, network, addr string) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	if network == "unixgram" {
		c, err := net.ListenPacket(network, addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		go func() {
			b := make([]byte, 64)
			for {
				if _, _, err := c.ReadFrom(b); err != nil {
					return
				}
				n.Add(1)
			}
		}()
		return &n
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
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

func needGuard(t *testing.T) int {
	t.Helper()
	abi, why := Status()
	if abi == 0 {
		t.Skip("no Landlock here: " + why)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	return abi
}

// sockRoutes is the sealed command: each route prints FAIL:<name> when
// it does not behave as a sealed command's should.
const sockRoutes = `
import errno, multiprocessing, os, socket, sys
w, o, abstract = sys.argv[1], sys.argv[2], sys.argv[3]
fails = []
def expect(name, fn, ok):
    try:
        fn()
        got = True
    except OSError as e:
        got = False
        if not ok and e.errno not in (errno.EACCES, errno.EPERM):
            fails.append(name + ":errno=" + str(e.errno))
            return
    if got != ok:
        fails.append(name)
def stream(addr):
    s = socket.socket(socket.AF_UNIX)
    s.connect(addr)
    s.close()
d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
# outside: a server's socket, through a symlink in the copy, datagrams
expect("outside-stream", lambda: stream(o + "/s.sock"), False)
os.symlink(o + "/s.sock", w + "/link.sock")
expect("outside-symlink", lambda: stream(w + "/link.sock"), False)
expect("outside-dgram-sendto", lambda: d.sendto(b"x", o + "/d.sock"), False)
expect("outside-dgram-sendmsg", lambda: d.sendmsg([b"x"], [], 0, o + "/d.sock"), False)
expect("outside-abstract", lambda: stream("\0" + abstract), False)
# its own: a stream server, by absolute and relative path, a datagram
# one, an abstract one, a socketpair passing a descriptor
srv = socket.socket(socket.AF_UNIX)
srv.bind(w + "/own.sock")
srv.listen(8)
expect("own-stream", lambda: stream(w + "/own.sock"), True)
os.chdir(w)
expect("own-relative", lambda: stream("own.sock"), True)
ds = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
ds.bind(w + "/own-d.sock")
expect("own-dgram", lambda: d.sendto(b"hi", w + "/own-d.sock"), True)
expect("own-dgram-sendmsg", lambda: d.sendmsg([b"h", b"o"], [], 0, w + "/own-d.sock"), True)
if ds.recv(8) != b"hi" or ds.recv(8) != b"ho":
    fails.append("own-dgram-data")
asrv = socket.socket(socket.AF_UNIX)
asrv.bind("\0own-" + abstract)
asrv.listen(8)
expect("own-abstract", lambda: stream("\0own-" + abstract), True)
a, b = socket.socketpair()
r, wr = os.pipe()
socket.send_fds(a, [b"m"], [wr])
msg, fds, _, _ = socket.recv_fds(b, 8, 1)
os.write(fds[0], b"z")
if os.read(r, 1) != b"z":
    fails.append("scm-rights")
# Python's multiprocessing manager: a socket in TMPDIR
with multiprocessing.Manager() as m:
    dd = m.dict()
    dd["k"] = 1
    if dd["k"] != 1:
        fails.append("manager")
for f in fails:
    print("FAIL:" + f)
sys.exit(1 if fails else 0)
`

// TestSockGuard: a sealed command cannot reach a pathname socket, an
// abstract socket or a datagram address outside its Write directories
// (a tmux, Docker or D-Bus server's), directly or through a symlink it
// makes; its own sockets (stream, datagram, abstract, socketpair with
// SCM_RIGHTS, Python's multiprocessing manager in TMPDIR) keep working.
func TestSockGuard(t *testing.T) {
	needGuard(t)
	top := t.TempDir()
	w, o := filepath.Join(top, "w"), filepath.Join(top, "o")
	for _, d := range []string{w, o} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	abstract := "shadow-sockguard-" + filepath.Base(top)
	outside := []*atomic.Int32{
		serve(t, "unix", filepath.Join(o, "s.sock")),
		serve(t, "unixgram", filepath.Join(o, "d.sock")),
		serve(t, "unix", "@"+abstract),
	}
	script := filepath.Join(top, "routes.py")
	if err := os.WriteFile(script, []byte(sockRoutes), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Policy{Write: []string{w}, Devices: DefaultDevices}
	env := append(os.Environ(), "TMPDIR="+w)
	pid, sealed, err := ForkExecSealed(p, "/usr/bin/env", []string{"env", "python3", script, w, o, abstract},
		&syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		t.Fatal(err)
	}
	if ws.ExitStatus() != 0 {
		t.Errorf("exit %d: a route behaved wrongly (FAIL lines above); sealed %q", ws.ExitStatus(), sealed)
	}
	for i, n := range outside {
		if n.Load() != 0 {
			t.Errorf("outside server %d was reached %d time(s)", i, n.Load())
		}
	}
}

// TestSockGuardRace: the check is made on the helper's copy of the
// address. A hostile command flips the path between its own socket and
// an outside one from a second thread while it connects, thousands of
// times (the race seccomp_unotify(2) warns of for CONTINUE): the outside
// server is never reached, and the command's own connects go through.
func TestSockGuardRace(t *testing.T) {
	needGuard(t)
	top := t.TempDir()
	w, o := filepath.Join(top, "w"), filepath.Join(top, "o")
	for _, d := range []string{w, o} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	// Same length, so only the bytes change.
	own, evil := filepath.Join(w, "a.sock"), filepath.Join(o, "a.sock")
	ownN := serve(t, "unix", own)
	evilN := serve(t, "unix", evil)
	exe, _ := os.Executable()
	pid, _, err := ForkExecSealed(Policy{Write: []string{w}, Devices: DefaultDevices}, exe, []string{exe, own, evil},
		&syscall.ProcAttr{Env: append(os.Environ(), childEnv+"=race"), Files: []uintptr{0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		t.Fatal(err)
	}
	if evilN.Load() != 0 {
		t.Errorf("the outside server was reached %d time(s) (own %d)", evilN.Load(), ownN.Load())
	}
	if ownN.Load() == 0 || ws.ExitStatus() != 0 {
		t.Errorf("the command's own socket: %d connects, exit %d", ownN.Load(), ws.ExitStatus())
	}
}

// raceChild is the hostile command of TestSockGuardRace.
func raceChild(own, evil string) int {
	var sa unix.RawSockaddrUnix
	sa.Family = unix.AF_UNIX
	set := func(p string) {
		for i := range len(p) {
			sa.Path[i] = int8(p[i])
		}
	}
	set(own)
	var stop atomic.Bool
	go func() {
		for !stop.Load() {
			set(evil)
			set(own)
		}
	}()
	ok := 0
	for range 3000 {
		s, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return 2
		}
		_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(s), uintptr(unsafe.Pointer(&sa)), unsafe.Sizeof(sa))
		if e == 0 {
			ok++
		}
		unix.Close(s)
	}
	stop.Store(true)
	if ok == 0 {
		return 1
	}
	return 0
}

// TestSockGuardNoRing: io_uring, whose connect and sendmsg never pass
// through seccomp, is refused to a sealed command (ENOSYS).
func TestSockGuardNoRing(t *testing.T) {
	needGuard(t)
	code := run(t, Policy{Write: []string{t.TempDir()}, Devices: DefaultDevices}, "/usr/bin/env", "python3", "-c", `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
fd = libc.syscall(425, 4, params)
sys.exit(0 if fd < 0 and ctypes.get_errno() == 38 else 1)
`)
	if code != 0 {
		t.Errorf("io_uring_setup: exit %d, want refused with ENOSYS", code)
	}
}

// TestSockFilterAssembles: every jump of the filter lands (the
// assembler refuses a bad one) on every architecture this builds for.
func TestSockFilterAssembles(t *testing.T) {
	prog, err := sockFilter(true)
	if err != nil {
		t.Fatal(err)
	}
	if len(prog) < 10 || !strings.Contains(Sealed{ABI: 7}.String(), "landlock abi 7") {
		t.Errorf("filter of %d instructions", len(prog))
	}
}

// connectChild connects to sock n times and writes the mean nanoseconds
// per connect to out (BenchmarkConnect).
func connectChild(sock, n, out string) int {
	count, _ := strconv.Atoi(n)
	t0 := time.Now()
	for range count {
		c, err := net.Dial("unix", sock)
		if err != nil {
			return 1
		}
		c.Close()
	}
	ns := float64(time.Since(t0).Nanoseconds()) / float64(max(count, 1))
	if os.WriteFile(out, []byte(strconv.FormatFloat(ns, 'f', 0, 64)), 0o644) != nil {
		return 1
	}
	return 0
}

// TestSockGuardSignalsKeepStreams: a sealed command sends 4 MiB with
// sendmsg(2) over a socketpair whose reader is slow, so the helper's send
// blocks, while its sending thread gets a signal every millisecond (Go's
// runtime's own signals besides): the bytes arrive once each, in order. A
// send the signal restarted after the helper had performed it would send
// data twice (the filter's WAIT_KILLABLE_RECV prevents it).
func TestSockGuardSignalsKeepStreams(t *testing.T) {
	needGuard(t)
	exe, _ := os.Executable()
	pid, _, err := ForkExecSealed(Policy{Write: []string{t.TempDir()}, Devices: DefaultDevices}, exe, []string{exe},
		&syscall.ProcAttr{Env: append(os.Environ(), childEnv+"=signals"), Files: []uintptr{0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		t.Fatal(err)
	}
	if ws.ExitStatus() != 0 {
		t.Errorf("the stream arrived damaged (exit %d)", ws.ExitStatus())
	}
}

func signalsChild() int {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 2
	}
	_ = unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_SNDBUF, 4096)
	const total = 4 << 20
	done := make(chan bool)
	go func() {
		b := make([]byte, 8192)
		got := 0
		for got < total {
			n, err := unix.Read(fds[1], b)
			if err == unix.EINTR {
				continue
			}
			if err != nil || n == 0 {
				done <- false
				return
			}
			for i := 0; i < n; i++ {
				if b[i] != byte((got+i)%251) {
					fmt.Fprintf(os.Stderr, "byte %d: %d, want %d\n", got+i, b[i], (got+i)%251)
					done <- false
					return
				}
			}
			got += n
			if got%(256<<10) < n {
				time.Sleep(5 * time.Millisecond)
			}
		}
		done <- true
	}()
	// Signals aimed at the thread blocked in sendmsg (a process-wide
	// one may land on any idle thread of the Go runtime).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGALRM)
	runtime.LockOSThread()
	tid := unix.Gettid()
	var stop atomic.Bool
	defer stop.Store(true)
	go func() {
		for !stop.Load() {
			_ = unix.Tgkill(os.Getpid(), tid, unix.SIGALRM)
			time.Sleep(time.Millisecond)
		}
	}()
	buf := make([]byte, 64<<10)
	for sent := 0; sent < total; {
		chunk := buf[:min(len(buf), total-sent)]
		for i := range chunk {
			chunk[i] = byte((sent + i) % 251)
		}
		n, err := unix.SendmsgN(fds[0], chunk, nil, nil, 0)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil {
			return 3
		}
		sent += n
	}
	if !<-done {
		return 1
	}
	return 0
}

// TestSockGuardNetIsolated: with --net isolated the guard performs TCP
// connects as Landlock would refuse them: only to the allowed ports,
// blocking and non-blocking alike.
func TestSockGuardNetIsolated(t *testing.T) {
	if abi := needGuard(t); abi < 4 {
		t.Skip("TCP rules need Landlock ABI 4")
	}
	allowed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer allowed.Close()
	denied, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer denied.Close()
	var deniedN atomic.Int32
	go func() {
		for {
			c, err := denied.Accept()
			if err != nil {
				return
			}
			deniedN.Add(1)
			c.Close()
		}
	}()
	ap, dp := allowed.Addr().(*net.TCPAddr).Port, denied.Addr().(*net.TCPAddr).Port
	p := Policy{Write: []string{t.TempDir()}, Devices: DefaultDevices, Net: true, Ports: []uint16{uint16(ap)}}
	code := run(t, p, "/usr/bin/env", "python3", "-c", `
import errno, socket, sys
ok, no = int(sys.argv[1]), int(sys.argv[2])
socket.create_connection(("127.0.0.1", ok)).close()
for blocking in (True, False):
    s = socket.socket()
    s.setblocking(blocking)
    try:
        s.connect(("127.0.0.1", no))
        sys.exit(1)
    except BlockingIOError:
        sys.exit(1)
    except OSError as e:
        if e.errno != errno.EACCES:
            sys.exit(2)
`, strconv.Itoa(ap), strconv.Itoa(dp))
	if code != 0 || deniedN.Load() != 0 {
		t.Errorf("exit %d, %d connection(s) to the port not allowed", code, deniedN.Load())
	}
}

// TestSockGuardWithoutPidfdGetfd: where a seccomp profile refuses
// pidfd_getfd(2) the guard cannot perform a call, so it is left out
// rather than refuse every connect: the command's own sockets and TCP
// keep working, and the seal says pathname sockets stay reachable.
func TestSockGuardWithoutPidfdGetfd(t *testing.T) {
	needGuard(t)
	exe, _ := os.Executable()
	c := exec.Command(exe, t.TempDir())
	c.Env = append(os.Environ(), childEnv+"=nogetfd")
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "landlock abi ") || !strings.Contains(string(out), "pathname unix sockets and metadata outside reachable: pidfd_getfd") {
		t.Errorf("%v\n%s", err, out)
	}
}

// noGetfdChild refuses pidfd_getfd to every thread of this process
// (EPERM, as a profile without it answers), then seals a command that
// connects to a socket of its own, and prints the seal.
func noGetfdChild() int {
	runtime.LockOSThread()
	var a asm
	a.ld(0)
	a.jeq(unix.SYS_PIDFD_GETFD, "deny", "")
	a.ret(unix.SECCOMP_RET_ALLOW)
	a.label("deny")
	a.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	prog, err := a.assemble()
	if err != nil {
		return 2
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return 2
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return 2
	}
	w := os.Args[1]
	script := "import socket, sys\ns = socket.socket(socket.AF_UNIX)\ns.bind(sys.argv[1] + '/own.sock')\ns.listen(1)\nsocket.socket(socket.AF_UNIX).connect(sys.argv[1] + '/own.sock')\n"
	pid, sealed, err := ForkExecSealed(Policy{Write: []string{w}, Devices: DefaultDevices}, "/usr/bin/env", []string{"env", "python3", "-c", script, w},
		&syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil || ws.ExitStatus() != 0 {
		fmt.Println("the command's own socket: exit", ws.ExitStatus())
		return 1
	}
	fmt.Println(sealed.String())
	return 0
}

// nodeIPC is a Node.js program using what test runners do: a server on a
// unix socket in TMPDIR, and a forked worker over child_process's IPC
// channel that is sent a socket handle (sendmsg with SCM_RIGHTS).
const nodeIPC = `
const net = require('net'), cp = require('child_process'), path = require('path');
if (process.argv[2] === 'child') {
  process.on('message', (m, sock) => { sock.end('from-child:' + m); process.disconnect(); });
  return;
}
const p = path.join(process.env.TMPDIR, 'node.sock');
const server = net.createServer(c => {
  const child = cp.fork(__filename, ['child']);
  child.send('hi', c);
});
server.listen(p, () => {
  const c = net.connect(p);
  let got = '';
  c.on('data', d => got += d);
  c.on('end', () => { server.close(); console.log(got); process.exit(got === 'from-child:hi' ? 0 : 1); });
  c.on('error', e => { console.log('error', e.message); process.exit(2); });
});
`

// TestSockGuardNodeIPC: a sealed Node.js program serves a unix socket in
// its TMPDIR and hands a connection to a forked worker (jest's and
// vitest's workers use the same IPC channel).
func TestSockGuardNodeIPC(t *testing.T) {
	needGuard(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("needs node")
	}
	w := t.TempDir()
	script := filepath.Join(w, "ipc.js")
	if err := os.WriteFile(script, []byte(nodeIPC), 0o644); err != nil {
		t.Fatal(err)
	}
	code := run(t, Policy{Write: []string{w}, Devices: DefaultDevices}, "/usr/bin/env", "TMPDIR="+w, node, script)
	if code != 0 {
		t.Errorf("node: exit %d", code)
	}
}

// TestSockGuardGarbage: a hostile command hands the guard malformed
// calls (lengths past 2^63, bad pointers, a control message longer than
// its buffer, a vector count of -1): each fails with an error, and the
// guard is still there afterwards (a helper that died would leave the
// tree unreaped): its own socket still connects, an outside one still
// does not.
func TestSockGuardGarbage(t *testing.T) {
	needGuard(t)
	w, o := t.TempDir(), t.TempDir()
	own := serve(t, "unix", filepath.Join(w, "s.sock"))
	evil := serve(t, "unix", filepath.Join(o, "s.sock"))
	exe, _ := os.Executable()
	pid, _, err := ForkExecSealed(Policy{Write: []string{w}, Devices: DefaultDevices}, exe, []string{exe, w, o},
		&syscall.ProcAttr{Env: append(os.Environ(), childEnv+"=garbage"), Files: []uintptr{0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		t.Fatal(err)
	}
	if ws.ExitStatus() != 0 || own.Load() == 0 || evil.Load() != 0 {
		t.Errorf("exit %d, own socket %d connection(s), outside %d", ws.ExitStatus(), own.Load(), evil.Load())
	}
}

func garbageChild(w string) int {
	s, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 2
	}
	huge := uint64(1) << 63
	var sa unix.RawSockaddrUnix
	sa.Family = unix.AF_UNIX
	copy((*[108]byte)(unsafe.Pointer(&sa.Path))[:], "/nonexistent")
	buf := make([]byte, 16)
	iov := [2]uint64{uint64(uintptr(unsafe.Pointer(&buf[0]))), huge}
	ctl := make([]byte, 64)
	ne.PutUint64(ctl, huge) // cmsg_len past the buffer
	msg := make([]byte, 56)
	ne.PutUint64(msg[0:], uint64(uintptr(unsafe.Pointer(&sa))))
	ne.PutUint32(msg[8:], uint32(unsafe.Sizeof(sa)))
	ne.PutUint64(msg[16:], uint64(uintptr(unsafe.Pointer(&iov[0]))))
	ne.PutUint64(msg[24:], 1)
	ne.PutUint64(msg[32:], uint64(uintptr(unsafe.Pointer(&ctl[0]))))
	ne.PutUint64(msg[40:], uint64(len(ctl)))
	calls := [][4]uintptr{
		{unix.SYS_SENDTO, uintptr(s), uintptr(unsafe.Pointer(&buf[0])), uintptr(huge)},
		{unix.SYS_SENDMSG, uintptr(s), uintptr(unsafe.Pointer(&msg[0])), 0},
		{unix.SYS_SENDMSG, uintptr(s), 8, 0},
		{unix.SYS_SENDMMSG, uintptr(s), uintptr(unsafe.Pointer(&msg[0])), ^uintptr(0)},
		{unix.SYS_CONNECT, uintptr(s), 8, 200},
	}
	for _, c := range calls {
		if c[0] == unix.SYS_SENDTO {
			unix.Syscall6(c[0], c[1], c[2], c[3], 0, uintptr(unsafe.Pointer(&sa)), unsafe.Sizeof(sa))
		} else {
			unix.Syscall6(c[0], c[1], c[2], c[3], 0, 0, 0)
		}
	}
	runtime.KeepAlive(buf)
	runtime.KeepAlive(ctl)
	runtime.KeepAlive(msg)
	runtime.KeepAlive(&sa)
	// The guard is still there: its own socket connects, the outside not.
	if c, err := net.Dial("unix", filepath.Join(w, "s.sock")); err != nil {
		return 3
	} else {
		c.Close()
	}
	if c, err := net.Dial("unix", filepath.Join(os.Args[2], "s.sock")); err == nil {
		c.Close()
		return 4
	}
	return 0
}
