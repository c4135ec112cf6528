package landlock

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Pathname unix sockets before Landlock ABI 9: Landlock's filesystem
// rights do not cover connect(2) to a socket file (LANDLOCK_ACCESS_FS_
// RESOLVE_UNIX comes with ABI 9), so a sealed command could still reach
// tmux's /tmp/tmux-UID/default (and type into the user's shell),
// /var/run/docker.sock (root on the host), the system D-Bus or
// $SSH_AUTH_SOCK. The socket guard closes that route with a seccomp
// filter whose connect, sendmsg, sendmmsg and addressed sendto calls
// notify the process helper (seccomp_unotify(2)); the helper performs
// each such call itself, on the command's own socket (pidfd_getfd(2))
// with its own copy of the address, after checking it (sockguard_linux.go).
// The filter never answers CONTINUE: seccomp_unotify(2) warns that a
// second thread can rewrite the address between the check and the
// kernel's own read of it.

// The system calls the filter sends to the helper, per architecture: the
// native ones, and those of the 32-bit compat ABI, which the helper does
// not decode (their structures differ) and so are refused outright:
// socketcall(2) multiplexes every socket call behind a pointer. A 32-bit
// program in a sealed command cannot connect a socket; one that only
// sends on connected ones works.
type sysnos struct {
	arch                                      uint32
	connect, sendto, sendmsg, sendmmsg, uring uint32
	socketcall                                uint32 // 0: none
}

// x32 is the x32 ABI's bit in a syscall number on amd64 (its calls
// arrive with AUDIT_ARCH_X86_64); no x32 call is let through.
const x32 = 0x40000000

// sockFilter is the guard's BPF program for this architecture.
// With meta, the calls that change a file's metadata go to the helper
// too (metacalls_linux.go), their compat forms refused.
func sockFilter(meta bool) ([]unix.SockFilter, error) {
	var native, compat sysnos
	switch runtime.GOARCH {
	case "amd64":
		native = sysnos{unix.AUDIT_ARCH_X86_64, unix.SYS_CONNECT, unix.SYS_SENDTO, unix.SYS_SENDMSG, unix.SYS_SENDMMSG, unix.SYS_IO_URING_SETUP, 0}
		compat = sysnos{unix.AUDIT_ARCH_I386, 362, 369, 370, 345, 425, 102}
	case "arm64":
		native = sysnos{unix.AUDIT_ARCH_AARCH64, unix.SYS_CONNECT, unix.SYS_SENDTO, unix.SYS_SENDMSG, unix.SYS_SENDMMSG, unix.SYS_IO_URING_SETUP, 0}
		compat = sysnos{unix.AUDIT_ARCH_ARM, 283, 290, 296, 374, 425, 0}
	default:
		return nil, fmt.Errorf("no socket guard for %s", runtime.GOARCH)
	}
	const (
		offNr, offArch = 0, 4
		offArg4Lo      = 16 + 4*8 // struct seccomp_data: args at 16, little-endian
		offArg4Hi      = offArg4Lo + 4
	)
	notify := uint32(unix.SECCOMP_RET_USER_NOTIF)
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	eacces := uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EACCES)
	// io_uring's IORING_OP_CONNECT and IORING_OP_SENDMSG never pass
	// through seccomp: no ring (ENOSYS, as Docker's profile answers since
	// 25.0; libuv and others fall back to plain calls).
	enosys := uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.ENOSYS)
	var a asm
	a.ld(offArch)
	a.jeq(native.arch, "native", "")
	a.jeq(compat.arch, "compat", "")
	a.ret(allow) // no other ABI exists on this architecture
	a.label("native")
	a.ld(offNr)
	if runtime.GOARCH == "amd64" {
		a.jset(x32, "nosys", "")
	}
	a.jeq(native.connect, "notify", "")
	a.jeq(native.sendmsg, "notify", "")
	a.jeq(native.sendmmsg, "notify", "")
	a.jeq(native.uring, "nosys", "")
	if meta {
		for _, c := range metaCalls {
			a.jeq(c.nr, "notify", "")
		}
	}
	a.jeq(native.sendto, "", "allow")
	// sendto with a NULL dest_addr (send(2), as libc makes it) goes to the
	// connected peer: nothing to check.
	a.ld(offArg4Lo)
	a.jeq(0, "", "notify")
	a.ld(offArg4Hi)
	a.jeq(0, "allow", "notify")
	a.label("compat")
	a.ld(offNr)
	a.jeq(compat.connect, "deny", "")
	a.jeq(compat.sendmsg, "deny", "")
	a.jeq(compat.sendmmsg, "deny", "")
	if compat.socketcall != 0 {
		a.jeq(compat.socketcall, "deny", "")
	}
	a.jeq(compat.uring, "nosys", "")
	if meta {
		for _, nr := range compatMetaCalls {
			a.jeq(nr, "deny", "")
		}
	}
	a.jeq(compat.sendto, "", "allow")
	a.ld(offArg4Lo) // 32-bit arguments: the low half is all of it
	a.jeq(0, "allow", "deny")
	a.label("allow")
	a.ret(allow)
	a.label("notify")
	a.ret(notify)
	a.label("deny")
	a.ret(eacces)
	a.label("nosys")
	a.ret(enosys)
	return a.assemble()
}

// installSockFilter puts the calling thread (and what it forks) under the
// guard's filter and returns the notification fd (close-on-exec, as
// seccomp(2) makes it). no_new_privs must already be set. A thread that
// already has a listener in its filter chain (shadow run inside a
// sealed command) gets EBUSY: the outer guard then stays the one that
// answers.
func installSockFilter(meta bool) (int, error) {
	prog, err := sockFilter(meta)
	if err != nil {
		return -1, err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	// WAIT_KILLABLE_RECV (Linux 5.19): once the helper has read a call,
	// only a fatal signal interrupts the caller's wait. Otherwise a
	// signal (SIGCHLD, a timer) would restart a sendmsg the helper is
	// performing and the data would be sent twice on a stream.
	// SPEC_ALLOW (Linux 4.17): a seccomp filter otherwise turns on the
	// speculative store bypass mitigation for the whole command tree
	// where the kernel's default is "prctl,seccomp", a slowdown a test
	// suite would pay for a filter that guards sockets, not secrets.
	const listen = unix.SECCOMP_FILTER_FLAG_NEW_LISTENER
	var fd uintptr
	var e unix.Errno
	for _, flags := range []uintptr{
		listen | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV | unix.SECCOMP_FILTER_FLAG_SPEC_ALLOW,
		listen | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
		listen,
	} {
		fd, _, e = unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
		if e != unix.EINVAL {
			break
		}
	}
	runtime.KeepAlive(prog)
	if e != 0 {
		return -1, fmt.Errorf("seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER): %w", e)
	}
	return int(fd), nil
}

// asm assembles a classic BPF program with named jump targets, so that
// no offset is counted by hand.
type asm struct {
	ins    []unix.SockFilter
	jt, jf []string
	labels map[string]int
}

func (a *asm) emit(f unix.SockFilter, jt, jf string) {
	a.ins = append(a.ins, f)
	a.jt = append(a.jt, jt)
	a.jf = append(a.jf, jf)
}

func (a *asm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.ins)
}

func (a *asm) ld(off uint32) {
	a.emit(unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off}, "", "")
}

// and masks the accumulator with k.
func (a *asm) and(k uint32) {
	a.emit(unix.SockFilter{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: k}, "", "")
}

func (a *asm) ret(k uint32) { a.emit(unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k}, "", "") }

// jeq and jset jump to jt or jf ("" falls through to the next).
func (a *asm) jeq(k uint32, jt, jf string) {
	a.emit(unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k}, jt, jf)
}

func (a *asm) jset(k uint32, jt, jf string) {
	a.emit(unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, K: k}, jt, jf)
}

func (a *asm) assemble() ([]unix.SockFilter, error) {
	out := append([]unix.SockFilter(nil), a.ins...)
	off := func(i int, name string) (uint8, error) {
		if name == "" {
			return 0, nil
		}
		t, ok := a.labels[name]
		if !ok || t <= i || t-i-1 > 255 {
			return 0, fmt.Errorf("bpf: bad jump from %d to %q", i, name)
		}
		return uint8(t - i - 1), nil
	}
	for i := range out {
		var err error
		if out[i].Jt, err = off(i, a.jt[i]); err != nil {
			return nil, err
		}
		if out[i].Jf, err = off(i, a.jf[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}
