//go:build linux

package landlock

import "golang.org/x/sys/unix"

// metaCalls are the native calls that change a file's metadata, which
// no Landlock right covers (metacalls_linux.go), on this architecture
// (arm64 has only the *at forms of the path calls).
var metaCalls = []metaCall{
	{nr: unix.SYS_FCHMOD, op: opChmod, dir: -1, path: -1, fd: 0, flags: -1},
	{nr: unix.SYS_FCHMODAT, op: opChmod, dir: 0, path: 1, flags: -1},
	{nr: unix.SYS_FCHMODAT2, op: opChmod, dir: 0, path: 1, flags: 3},
	{nr: unix.SYS_FCHOWN, op: opChown, dir: -1, path: -1, fd: 0, flags: -1},
	{nr: unix.SYS_FCHOWNAT, op: opChown, dir: 0, path: 1, flags: 4},
	{nr: unix.SYS_UTIMENSAT, op: opUtimens, dir: 0, path: 1, flags: 3},
	{nr: unix.SYS_SETXATTR, op: opSetxattr, dir: -1, path: 0, flags: -1},
	{nr: unix.SYS_LSETXATTR, op: opSetxattr, dir: -1, path: 0, flags: -1, nofollow: true},
	{nr: unix.SYS_FSETXATTR, op: opSetxattr, dir: -1, path: -1, fd: 0, flags: -1},
	{nr: unix.SYS_REMOVEXATTR, op: opRemovexattr, dir: -1, path: 0, flags: -1},
	{nr: unix.SYS_LREMOVEXATTR, op: opRemovexattr, dir: -1, path: 0, flags: -1, nofollow: true},
	{nr: unix.SYS_FREMOVEXATTR, op: opRemovexattr, dir: -1, path: -1, fd: 0, flags: -1},
	{nr: unix.SYS_SETXATTRAT, op: opRefuse},
	{nr: unix.SYS_REMOVEXATTRAT, op: opRefuse},
}

// compatMetaCalls are the same calls in the 32-bit ARM ABI: refused.
var compatMetaCalls = []uint32{198, 207, 412, 15, 94, 333, 452, 182, 95, 16, 212, 325, 30, 269, 326, 348, 226, 227, 228, 235, 236, 237, 463, 466}
