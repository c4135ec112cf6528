//go:build linux

package landlock

import "golang.org/x/sys/unix"

// metaCalls are the native calls that change a file's metadata, which
// no Landlock right covers (metacalls_linux.go), on this architecture.
var metaCalls = []metaCall{
	{nr: unix.SYS_CHMOD, op: opChmod, dir: -1, path: 0, flags: -1},
	{nr: unix.SYS_FCHMOD, op: opChmod, dir: -1, path: -1, fd: 0, flags: -1},
	{nr: unix.SYS_FCHMODAT, op: opChmod, dir: 0, path: 1, flags: -1},
	{nr: unix.SYS_FCHMODAT2, op: opChmod, dir: 0, path: 1, flags: 3},
	{nr: unix.SYS_CHOWN, op: opChown, dir: -1, path: 0, flags: -1},
	{nr: unix.SYS_LCHOWN, op: opChown, dir: -1, path: 0, flags: -1, nofollow: true},
	{nr: unix.SYS_FCHOWN, op: opChown, dir: -1, path: -1, fd: 0, flags: -1},
	{nr: unix.SYS_FCHOWNAT, op: opChown, dir: 0, path: 1, flags: 4},
	{nr: unix.SYS_UTIME, op: opUtime, dir: -1, path: 0, flags: -1},
	{nr: unix.SYS_UTIMES, op: opUtimes, dir: -1, path: 0, flags: -1},
	{nr: unix.SYS_FUTIMESAT, op: opUtimes, dir: 0, path: 1, flags: -1},
	{nr: unix.SYS_UTIMENSAT, op: opUtimens, dir: 0, path: 1, flags: 3},
	{nr: unix.SYS_SETXATTR, op: opSetxattr, dir: -1, path: 0, flags: -1},
	{nr: unix.SYS_LSETXATTR, op: opSetxattr, dir: -1, path: 0, flags: -1, nofollow: true},
	{nr: unix.SYS_FSETXATTR, op: opSetxattr, dir: -1, path: -1, fd: 0, flags: -1},
	{nr: unix.SYS_REMOVEXATTR, op: opRemovexattr, dir: -1, path: 0, flags: -1},
	{nr: unix.SYS_LREMOVEXATTR, op: opRemovexattr, dir: -1, path: 0, flags: -1, nofollow: true},
	{nr: unix.SYS_FREMOVEXATTR, op: opRemovexattr, dir: -1, path: -1, fd: 0, flags: -1},
	// setxattrat and removexattrat (Linux 6.13) pass a struct: refused.
	{nr: unix.SYS_SETXATTRAT, op: opRefuse},
	{nr: unix.SYS_REMOVEXATTRAT, op: opRefuse},
}

// compatMetaCalls are the same calls in the i386 ABI: refused.
var compatMetaCalls = []uint32{198, 412, 15, 94, 306, 452, 182, 16, 198, 212, 95, 207, 298, 30, 271, 299, 320, 226, 227, 228, 235, 236, 237, 463, 466}
