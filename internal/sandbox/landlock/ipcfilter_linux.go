package landlock

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// What a command makes that outlives it and a later command can read,
// where no namespace of its own holds it (copy and in-place modes;
// overlay mode gives its command an IPC namespace, but no keyring):
//
//   - SysV shared memory, message queues and semaphore sets, and POSIX
//     message queues (mq_overview(7)): they live in the IPC namespace
//     (ipc_namespaces(7)) until removed, and any process of the same uid
//     reads them by key or name. The calls answer ENOSYS, as on a kernel
//     built without CONFIG_SYSVIPC or CONFIG_POSIX_MQUEUE, which programs
//     that can do without them expect. POSIX shared memory and
//     semaphores are files in /dev/shm, which the seal does not let the
//     command write.
//   - Keys (keyrings(7)): a key added to the user keyring stays until the
//     user's last process is gone (for root or a logged-in user, never),
//     and the session keyring the command inherits is shadow's. add_key,
//     keyctl and request_key answer EPERM, as Docker's default seccomp
//     profile has them.
//
// Each call is refused outright, in a filter of its own that needs no
// helper (no user notification): it applies where the socket guard
// cannot (pidfd_getfd refused) too.

// ipcCalls are the native calls refused, with the errno each answers.
func ipcCalls(sysv bool) map[uint32]unix.Errno {
	m := map[uint32]unix.Errno{
		unix.SYS_ADD_KEY: unix.EPERM, unix.SYS_KEYCTL: unix.EPERM, unix.SYS_REQUEST_KEY: unix.EPERM,
	}
	if sysv {
		for _, nr := range []uint32{unix.SYS_SHMGET, unix.SYS_SHMAT, unix.SYS_SHMCTL, unix.SYS_SHMDT,
			unix.SYS_MSGGET, unix.SYS_MSGSND, unix.SYS_MSGRCV, unix.SYS_MSGCTL,
			unix.SYS_SEMGET, unix.SYS_SEMOP, unix.SYS_SEMCTL, unix.SYS_SEMTIMEDOP,
			unix.SYS_MQ_OPEN, unix.SYS_MQ_UNLINK, unix.SYS_MQ_TIMEDSEND, unix.SYS_MQ_TIMEDRECEIVE,
			unix.SYS_MQ_NOTIFY, unix.SYS_MQ_GETSETATTR} {
			m[nr] = unix.ENOSYS
		}
	}
	return m
}

// compatIPCCalls are the same calls in the 32-bit compat ABI (i386's
// ipc(2) multiplexer among them): refused, all.
func compatIPCCalls(sysv bool) (arch uint32, nrs []uint32) {
	switch runtime.GOARCH {
	case "amd64":
		arch, nrs = unix.AUDIT_ARCH_I386, []uint32{286, 287, 288}
		if sysv {
			nrs = append(nrs, 117, 277, 278, 279, 280, 281, 282, 393, 394, 395, 396, 397, 398, 399, 400, 401, 402, 418, 419, 420)
		}
	case "arm64":
		arch, nrs = unix.AUDIT_ARCH_ARM, []uint32{309, 310, 311}
		if sysv {
			nrs = append(nrs, 274, 275, 276, 277, 278, 279, 298, 299, 300, 301, 302, 303, 304, 305, 306, 307, 308, 312, 418, 419, 420)
		}
	}
	return arch, nrs
}

// ipcFilter is the BPF program refusing ipcCalls (and keys only, when
// !sysv: overlay mode, whose IPC namespace is the command's own).
func ipcFilter(sysv bool) ([]unix.SockFilter, error) {
	var native uint32
	switch runtime.GOARCH {
	case "amd64":
		native = unix.AUDIT_ARCH_X86_64
	case "arm64":
		native = unix.AUDIT_ARCH_AARCH64
	default:
		return nil, fmt.Errorf("no IPC filter for %s", runtime.GOARCH)
	}
	compat, cnrs := compatIPCCalls(sysv)
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	errno := func(e unix.Errno) uint32 { return uint32(unix.SECCOMP_RET_ERRNO) | uint32(e) }
	var a asm
	a.ld(4) // arch
	a.jeq(native, "native", "")
	a.jeq(compat, "compat", "")
	a.ret(allow)
	a.label("native")
	a.ld(0)
	if runtime.GOARCH == "amd64" {
		a.and(^uint32(x32)) // x32's calls are the native ones with a bit set
	}
	calls := ipcCalls(sysv)
	for nr, e := range calls {
		a.jeq(nr, fmt.Sprint("e", int(e)), "")
	}
	a.ret(allow)
	a.label("compat")
	a.ld(0)
	for _, nr := range cnrs {
		a.jeq(nr, "e1", "")
	}
	a.ret(allow)
	a.label("e1")
	a.ret(errno(unix.EPERM))
	a.label(fmt.Sprint("e", int(unix.ENOSYS)))
	a.ret(errno(unix.ENOSYS))
	return a.assemble()
}

// RefuseIPC puts the calling thread (and what it forks) under ipcFilter.
// no_new_privs must be set (or the thread hold CAP_SYS_ADMIN).
func RefuseIPC(sysv bool) error {
	prog, err := ipcFilter(sysv)
	if err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	var e unix.Errno
	for _, flags := range []uintptr{unix.SECCOMP_FILTER_FLAG_SPEC_ALLOW, 0} {
		_, _, e = unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
		if e != unix.EINVAL {
			break
		}
	}
	runtime.KeepAlive(prog)
	if e != 0 {
		return fmt.Errorf("seccomp(SECCOMP_SET_MODE_FILTER): %w", e)
	}
	return nil
}
