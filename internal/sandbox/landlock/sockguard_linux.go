package landlock

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sockGuard answers the socket filter's notifications for one sealed
// command (see sockfilter_linux.go): it runs in the process helper,
// outside the command's Landlock domain, and performs each notified call
// itself. Nothing in the command's memory is read twice: the address and
// the data are copied once, checked, and the copy is what is sent.
type sockGuard struct {
	fd int // the seccomp notification fd
	// roots are where the command may reach pathname sockets: its Write
	// directories, symlinks resolved (sockets it binds itself can only
	// be there, since binding makes a file).
	roots     []string
	write     []string
	rootsOnce sync.Once
	// net and ports: --net isolated, checked here as Landlock would
	// (a connect performed by the helper is outside the domain).
	net   bool
	ports []uint16
	// own, when set, decides pathname sockets instead of roots: it is
	// given the command's socket and an O_PATH fd of the socket file
	// (GuardSockets).
	own func(sock, file int) bool
	// helper is the process whose descendants own the abstract sockets
	// the command may reach (its own domain's, as Landlock's scope
	// allows).
	helper int
}

func newSockGuard(fd int, p Policy) *sockGuard {
	return &sockGuard{fd: fd, net: p.Net, ports: p.Ports, helper: os.Getpid(), write: p.Write}
}

// rootsResolved is roots, resolved at the first pathname socket a
// command names (most never name one).
func (g *sockGuard) rootsResolved() []string {
	g.rootsOnce.Do(func() {
		for _, w := range g.write {
			if r, err := filepath.EvalSymlinks(w); err == nil {
				g.roots = append(g.roots, r)
			}
		}
	})
	return g.roots
}

// The kernel's structures (seccomp_unotify(2)).
type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

type seccompResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// maxInFlight bounds the calls the guard performs at once.
const maxInFlight = 1024

// serve answers notifications until every process under the filter is
// gone (the fd then polls POLLHUP), then closes the fd. Each call is
// answered on its own goroutine: a blocking connect must not hold up
// another process's.
func (g *sockGuard) serve() {
	defer unix.Close(g.fd)
	// The kernel's seccomp_notif may be larger than the one known here
	// (SECCOMP_GET_NOTIF_SIZES): RECV writes that many bytes.
	var sizes [3]uint16
	size := int(unsafe.Sizeof(seccompNotif{}))
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_NOTIF_SIZES, 0, uintptr(unsafe.Pointer(&sizes))); e == 0 && int(sizes[0]) > size {
		size = int(sizes[0])
	}
	inFlight := make(chan struct{}, maxInFlight)
	for {
		pfd := []unix.PollFd{{Fd: int32(g.fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(pfd, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return
		}
		if pfd[0].Revents&unix.POLLIN == 0 {
			return // POLLHUP: no process is left under the filter
		}
		buf := make([]byte, size) // RECV wants it zeroed
		if err := ioctlPtr(g.fd, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&buf[0])); err != nil {
			if err == unix.EINTR || err == unix.ENOENT {
				continue // the caller was interrupted before we read it
			}
			return
		}
		n := *(*seccompNotif)(unsafe.Pointer(&buf[0]))
		// A call that blocks (a send to a full socket) holds an OS
		// thread of the helper; a command with thousands of threads
		// blocked so must not exhaust the helper's (Go's limit is 10000,
		// and a helper that dies leaves the tree unreaped): past
		// maxInFlight the next call waits here, in the kernel's queue.
		inFlight <- struct{}{}
		go func() {
			defer func() { <-inFlight }()
			g.answer(n)
		}()
	}
}

func ioctlPtr(fd int, req uint, p unsafe.Pointer) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(p))
	if e != 0 {
		return e
	}
	return nil
}

// valid says whether notification id still waits: the thread that made
// it has neither ended nor been interrupted, so its pid still names it
// (seccomp_unotify(2): check after opening anything by that pid).
func (g *sockGuard) valid(id uint64) bool {
	return ioctlPtr(g.fd, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) == nil
}

func (g *sockGuard) answer(n seccompNotif) {
	// A call the guard fails to decode is refused, never allowed to
	// take the helper down: a helper that dies leaves the command's
	// tree unreaped.
	defer func() {
		if recover() != nil {
			r := seccompResp{ID: n.ID, Error: -int32(unix.EACCES)}
			_ = ioctlPtr(g.fd, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&r))
		}
	}()
	val, errno := g.handle(n)
	r := seccompResp{ID: n.ID, Val: val}
	if errno != 0 {
		r.Val, r.Error = 0, -int32(errno)
	}
	// ENOENT: the caller was interrupted or ended meanwhile; nothing
	// waits for the answer.
	_ = ioctlPtr(g.fd, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&r))
}

// target is the calling thread as the guard reaches it.
type target struct {
	tid   int
	pidfd int
}

// handle performs notified call n and returns its result, or an errno.
func (g *sockGuard) handle(n seccompNotif) (int64, unix.Errno) {
	t, errno := g.open(n)
	if errno != 0 {
		return 0, errno
	}
	defer unix.Close(t.pidfd)
	a := n.Args
	switch n.Nr {
	case unix.SYS_CONNECT:
		return g.connect(n.ID, t, int(a[0]), uintptr(a[1]), int(int32(a[2])))
	case unix.SYS_SENDTO:
		return g.sendto(n.ID, t, int(a[0]), uintptr(a[1]), int(a[2]), int(a[3]), uintptr(a[4]), int(int32(a[5])))
	case unix.SYS_SENDMSG:
		return g.sendmsg(n.ID, t, int(a[0]), uintptr(a[1]), int(a[2]))
	case unix.SYS_SENDMMSG:
		return g.sendmmsg(n.ID, t, int(a[0]), uintptr(a[1]), int(a[2]), int(a[3]))
	}
	if c, ok := metaCallOf(n.Nr); ok && g.own == nil {
		return g.meta(n.ID, t, c, a)
	}
	return 0, unix.ENOSYS
}

// open makes a pidfd for the notifying thread (PIDFD_THREAD, Linux 6.9;
// before, the pid of a thread group leader only) and checks it is still
// the thread that called.
func (g *sockGuard) open(n seccompNotif) (target, unix.Errno) {
	tid := int(n.Pid)
	fd, err := unix.PidfdOpen(tid, unix.O_EXCL) // PIDFD_THREAD == O_EXCL
	if err != nil {
		fd, err = unix.PidfdOpen(tid, 0)
	}
	if err != nil {
		// A thread that is not its group's leader on a kernel without
		// PIDFD_THREAD: its group's leader (same fd table, as every
		// pthread shares it).
		if tgid := tgidOf(tid); tgid > 0 {
			fd, err = unix.PidfdOpen(tgid, 0)
		}
	}
	if err != nil {
		return target{}, unix.EACCES
	}
	if !g.valid(n.ID) {
		unix.Close(fd)
		return target{}, unix.EINTR
	}
	return target{tid: tid, pidfd: fd}, 0
}

// sock duplicates the caller's fd into the helper (pidfd_getfd(2), which
// needs ptrace access to the caller: the helper is its ancestor, outside
// its Landlock domain). The duplicate shares the caller's open file
// description: connecting it connects the caller's socket.
func (g *sockGuard) sock(t target, fd int) (int, unix.Errno) {
	s, err := unix.PidfdGetfd(t.pidfd, fd, 0)
	if err != nil {
		var e unix.Errno
		if errors.As(err, &e) && e == unix.EBADF {
			return -1, unix.EBADF
		}
		// A command that made itself undumpable cannot be reached: its
		// call is refused rather than let through unchecked.
		return -1, unix.EACCES
	}
	return s, 0
}

// read copies n bytes at addr from the caller's memory.
func read(t target, addr uintptr, n int) ([]byte, unix.Errno) {
	if n == 0 {
		return nil, 0
	}
	if addr == 0 {
		return nil, unix.EFAULT
	}
	b := make([]byte, n)
	got, err := unix.ProcessVMReadv(t.tid, []unix.Iovec{{Base: &b[0], Len: uint64(n)}},
		[]unix.RemoteIovec{{Base: addr, Len: n}}, 0)
	if err != nil || got != n {
		// A seccomp profile without process_vm_readv: the same through
		// /proc/TID/mem (the same ptrace access check).
		f, ferr := os.Open("/proc/" + strconv.Itoa(t.tid) + "/mem")
		if ferr != nil {
			return nil, unix.EFAULT
		}
		defer f.Close()
		if m, err := f.ReadAt(b, int64(addr)); err != nil || m != n {
			return nil, unix.EFAULT
		}
	}
	return b, 0
}

// write copies b to addr in the caller's memory (sendmmsg's msg_len).
func write(t target, addr uintptr, b []byte) unix.Errno {
	got, err := unix.ProcessVMWritev(t.tid, []unix.Iovec{{Base: &b[0], Len: uint64(len(b))}},
		[]unix.RemoteIovec{{Base: addr, Len: len(b)}}, 0)
	if err != nil || got != len(b) {
		f, ferr := os.OpenFile("/proc/"+strconv.Itoa(t.tid)+"/mem", os.O_WRONLY, 0)
		if ferr != nil {
			return unix.EFAULT
		}
		defer f.Close()
		if m, err := f.WriteAt(b, int64(addr)); err != nil || m != len(b) {
			return unix.EFAULT
		}
	}
	return 0
}

func tgidOf(tid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Tgid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(rest))
			return n
		}
	}
	return 0
}

var ne = binary.NativeEndian

// guardUsable says whether the guard can do its work here: it takes the
// command's sockets with pidfd_getfd(2) (Linux 5.6), which a container
// runtime's seccomp profile may refuse (Docker's allows it since 20.10);
// without it every connect would be refused, so the guard is left out
// and the seal says that pathname sockets stay reachable. Tried once, on
// this process's own stdin.
func guardUsable() error {
	guardOnce.Do(func() {
		pfd, err := unix.PidfdOpen(os.Getpid(), 0)
		if err != nil {
			guardErr = fmt.Errorf("pidfd_open: %w", err)
			return
		}
		defer unix.Close(pfd)
		fd, err := unix.PidfdGetfd(pfd, 0, 0)
		if err != nil && !errors.Is(err, unix.EBADF) {
			guardErr = fmt.Errorf("pidfd_getfd: %w", err)
			return
		}
		if err == nil {
			unix.Close(fd)
		}
	})
	return guardErr
}

var (
	guardOnce sync.Once
	guardErr  error
)

// GuardSockets puts the calling thread (locked by the caller, with
// no_new_privs set) and what it forks under the socket guard's filter,
// for a sandbox that decides by itself which pathname sockets are the
// command's (overlay mode: own is given the command's socket and an
// O_PATH fd of the socket file it names, after symlinks). serve, called
// once the command is forked, answers its calls from other threads of
// the caller until no process under the filter is left; the thread
// itself must make no socket call of the kinds the filter sends
// (connect, sendmsg, sendmmsg, addressed sendto). An error says why the
// guard could not be installed (pidfd_getfd refused, a guard already
// above: EBUSY); nothing is installed then.
func GuardSockets(own func(sock, file int) bool) (serve func(), err error) {
	if err := guardUsable(); err != nil {
		return nil, err
	}
	fd, err := installSockFilter(false)
	if err != nil {
		return nil, err
	}
	g := &sockGuard{fd: fd, own: own, helper: os.Getpid()}
	return g.serve, nil
}
