// Package dockerseccomp installs a seccomp filter that forbids new
// namespaces the way Docker's and Kubernetes' default profile does: under
// it unshare(2) and setns(2) fail with EPERM, clone(2) with any CLONE_NEW*
// flag fails with EPERM, and clone3(2) fails with ENOSYS (Docker answers
// ENOSYS so that libc and Go fall back to clone, whose flags a classic BPF
// filter can see: clone3's are behind a pointer). /proc/self/status then
// shows "Seccomp: 2". Tests run shadow under it, so the probe meets a real
// seccomp refusal rather than a test hook.
package dockerseccomp

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// cloneNewMask is Docker's: CLONE_NEWNS|CLONE_NEWCGROUP|CLONE_NEWUTS|
// CLONE_NEWIPC|CLONE_NEWUSER|CLONE_NEWPID|CLONE_NEWNET (default.json's
// clone rule allows only flags with none of these set).
const cloneNewMask = 0x7E020000

// Install puts every thread of this process under the filter (it sets
// no_new_privs, which the filter requires); whatever the process executes
// afterwards inherits it.
func Install() error {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok {
		return fmt.Errorf("no filter for %s", runtime.GOARCH)
	}
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
		// struct seccomp_data: nr at 0, arch at 4, args[0] at 16 (its
		// low 32 bits first on a little-endian machine).
		offNr, offArch, offArg0 = 0, 4, 16
	)
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	eperm := uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EPERM)
	enosys := uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.ENOSYS)
	// Jump offsets count from the next instruction; the comments give the
	// index each one lands on.
	prog := []unix.SockFilter{
		{Code: ld, K: offArch},                               // 0
		{Code: jeq, K: arch, Jt: 0, Jf: 7},                   // 1: another ABI -> 9
		{Code: ld, K: offNr},                                 // 2
		{Code: jeq, K: uint32(unix.SYS_CLONE3), Jt: 7},       // 3: -> 11
		{Code: jeq, K: uint32(unix.SYS_UNSHARE), Jt: 5},      // 4: -> 10
		{Code: jeq, K: uint32(unix.SYS_SETNS), Jt: 4},        // 5: -> 10
		{Code: jeq, K: uint32(unix.SYS_CLONE), Jt: 0, Jf: 2}, // 6: other -> 9
		{Code: ld, K: offArg0},                               // 7
		{Code: jset, K: cloneNewMask, Jt: 1, Jf: 0},          // 8: -> 10 / 9
		{Code: ret, K: allow},                                // 9
		{Code: ret, K: eperm},                                // 10
		{Code: ret, K: enosys},                               // 11
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	// A filter may only be installed by a process that cannot gain
	// privileges by execve (seccomp(2)).
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("PR_SET_NO_NEW_PRIVS: %w", err)
	}
	// TSYNC: every thread of this Go process gets the filter, whichever
	// one ends up calling execve.
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return fmt.Errorf("seccomp(SECCOMP_SET_MODE_FILTER): %w", e)
	}
	return nil
}

var auditArch = map[string]uint32{
	"amd64": unix.AUDIT_ARCH_X86_64,
	"arm64": unix.AUDIT_ARCH_AARCH64,
}

// InstallNoLandlock adds to Install's filter what a runtime whose profile
// predates Landlock does (Docker before 23.0, moby#43199): the landlock_*
// system calls fail with EPERM, the profile's default errno, so Landlock
// is unavailable and copy mode runs unsealed. Tests use it for that path.
func InstallNoLandlock() error {
	if err := Install(); err != nil {
		return err
	}
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jge = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	eperm := uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EPERM)
	prog := []unix.SockFilter{
		{Code: ld, K: 0}, // nr
		{Code: jge, K: uint32(unix.SYS_LANDLOCK_CREATE_RULESET), Jt: 0, Jf: 2},    // below -> allow
		{Code: jge, K: uint32(unix.SYS_LANDLOCK_RESTRICT_SELF) + 1, Jt: 1, Jf: 0}, // above -> allow
		{Code: ret, K: eperm},
		{Code: ret, K: allow},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return fmt.Errorf("seccomp(SECCOMP_SET_MODE_FILTER): %w", e)
	}
	return nil
}
