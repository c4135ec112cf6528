package landlock

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Metadata: Landlock has no right for chmod(2), chown(2), utimensat(2)
// or the xattr calls (landlock(7) lists the rights; none is about
// attributes), so a sealed command could change the mode, owner, times
// and extended attributes of any file it owns, by its path, outside its
// writable places: a checkout source's 644 made 600, a build output
// touched so that the user's next make says "up to date", shadow's
// integrity key. The socket guard's filter sends these calls to the
// helper too, which decides them as it does a socket's address: it reads
// the path once, resolves it as the caller would (its working directory,
// its dirfd, symlinks followed unless the call says not), and performs
// the call itself on the file it resolved and checked (through
// /proc/self/fd/N of its O_PATH descriptor, or the caller's own
// descriptor for fchmod, fchown, futimens, fsetxattr), only when that
// file lies beneath the command's Write directories; EPERM elsewhere.
// As root the helper, which keeps its capabilities, does only what the
// capless command could: the file must be the command's (its fsuid), a
// chown may not give it away, and only user.* attributes are set.

type metaOp int

const (
	opRefuse metaOp = iota
	opChmod
	opChown
	opUtime   // struct utimbuf
	opUtimes  // struct timeval[2]
	opUtimens // struct timespec[2]
	opSetxattr
	opRemovexattr
)

// metaCall is where a call's arguments are: -1 for none.
type metaCall struct {
	nr            uint32
	op            metaOp
	dir, path, fd int
	flags         int
	nofollow      bool
}

func metaCallOf(nr int32) (metaCall, bool) {
	for _, c := range metaCalls {
		if int32(c.nr) == nr {
			return c, true
		}
	}
	return metaCall{}, false
}

// meta performs metadata call c for the caller.
func (g *sockGuard) meta(id uint64, t target, c metaCall, a [6]uint64) (int64, unix.Errno) {
	if c.op == opRefuse {
		return 0, unix.ENOSYS
	}
	flags := 0
	if c.flags >= 0 {
		flags = int(a[c.flags])
	}
	nofollow := c.nofollow || flags&unix.AT_SYMLINK_NOFOLLOW != 0
	// The file: the caller's descriptor, or the path it names.
	var f int
	byFD := c.path < 0
	if !byFD && c.op == opUtimens && a[c.path] == 0 {
		byFD, c.fd = true, c.dir // utimensat(fd, NULL, ...): the fd's file
	}
	if !byFD {
		p, errno := readString(t, uintptr(a[c.path]))
		if errno != 0 {
			return 0, errno
		}
		if p == "" && flags&unix.AT_EMPTY_PATH != 0 && c.dir >= 0 {
			byFD, c.fd = true, c.dir
		} else {
			dir := unix.AT_FDCWD
			if c.dir >= 0 && int32(a[c.dir]) != unix.AT_FDCWD {
				dir = int(int32(a[c.dir]))
			}
			if f, errno = g.openAt(t, dir, p, nofollow); errno != 0 {
				return 0, errno
			}
		}
	}
	if byFD {
		var errno unix.Errno
		if f, errno = g.sock(t, int(int32(a[c.fd]))); errno != 0 {
			return 0, errno
		}
	}
	defer unix.Close(f)
	real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(f))
	if err != nil || !g.beneath(real) {
		return 0, unix.EPERM
	}
	var st unix.Stat_t
	if err := unix.Fstatat(f, "", &st, unix.AT_EMPTY_PATH|unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, unix.EPERM
	}
	link := st.Mode&unix.S_IFMT == unix.S_IFLNK
	arg := c.path + 1 // the call's first argument after the file
	if c.path < 0 {
		arg = c.fd + 1
	}
	if os.Geteuid() == 0 {
		if errno := asCommand(t, c.op, a[arg:], &st); errno != 0 {
			return 0, errno
		}
	}
	if !g.valid(id) {
		return 0, unix.EINTR
	}
	self := "/proc/self/fd/" + strconv.Itoa(f)
	switch c.op {
	case opChmod:
		if link {
			return 0, unix.EOPNOTSUPP // as fchmodat2(AT_SYMLINK_NOFOLLOW) says of a link
		}
		if byFD {
			return 0, errnoOf(unix.Fchmod(f, uint32(a[arg])))
		}
		return 0, errnoOf(unix.Fchmodat(unix.AT_FDCWD, self, uint32(a[arg]), 0))
	case opChown:
		return 0, errnoOf(unix.Fchownat(f, "", int(int32(a[arg])), int(int32(a[arg+1])), unix.AT_EMPTY_PATH))
	case opUtime, opUtimes, opUtimens:
		if link {
			return 0, unix.EPERM
		}
		ts, errno := times(t, c.op, uintptr(a[arg]))
		if errno != 0 {
			return 0, errno
		}
		var tp uintptr
		if ts != nil {
			tp = uintptr(unsafe.Pointer(&ts[0]))
		}
		pp, _ := unix.BytePtrFromString(self)
		atCwd := unix.AT_FDCWD
		_, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(atCwd), uintptr(unsafe.Pointer(pp)), tp, 0, 0, 0)
		runtime.KeepAlive(ts)
		return 0, e
	case opSetxattr, opRemovexattr:
		if link {
			return 0, unix.EPERM
		}
		i := arg
		name, errno := readString(t, uintptr(a[i]))
		if errno != 0 {
			return 0, errno
		}
		if os.Geteuid() == 0 && !strings.HasPrefix(name, "user.") {
			return 0, unix.EPERM
		}
		if c.op == opRemovexattr {
			return 0, errnoOf(unix.Removexattr(self, name))
		}
		val, errno := read(t, uintptr(a[i+1]), min(int(a[i+2]), 64<<10))
		if errno != 0 {
			return 0, errno
		}
		return 0, errnoOf(unix.Setxattr(self, name, val, int(a[i+3])))
	}
	return 0, unix.ENOSYS
}

// openAt opens path p as the caller names it, relative to its dirfd dir
// or working directory, as an O_PATH descriptor of the helper's.
func (g *sockGuard) openAt(t target, dir int, p string, nofollow bool) (int, unix.Errno) {
	for _, self := range []string{"/proc/self/", "/proc/thread-self/"} {
		if rest, ok := strings.CutPrefix(p, self); ok {
			p = "/proc/" + strconv.Itoa(t.tid) + "/" + rest
		}
	}
	base := unix.AT_FDCWD
	if !strings.HasPrefix(p, "/") {
		var err error
		if dir == unix.AT_FDCWD {
			base, err = unix.Open("/proc/"+strconv.Itoa(t.tid)+"/cwd", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				return -1, unix.EPERM
			}
		} else {
			var errno unix.Errno
			if base, errno = g.sock(t, dir); errno != 0 {
				return -1, errno
			}
		}
		defer unix.Close(base)
	}
	fl := unix.O_PATH | unix.O_CLOEXEC
	if nofollow {
		fl |= unix.O_NOFOLLOW
	}
	fd, err := unix.Openat(base, p, fl, 0)
	if err != nil {
		if e, ok := err.(unix.Errno); ok && (e == unix.ENOENT || e == unix.ENOTDIR || e == unix.ELOOP || e == unix.ENAMETOOLONG) {
			return -1, e
		}
		return -1, unix.EPERM
	}
	return fd, 0
}

// asCommand checks, for a helper running as root with its capabilities,
// that the capless command could make call op on the file st itself.
// args are the call's arguments after the file's: a chown's uid and gid.
func asCommand(t target, op metaOp, args []uint64, st *unix.Stat_t) unix.Errno {
	uid, gid := fsids(t.tid)
	if uid < 0 || int(st.Uid) != uid {
		return unix.EPERM
	}
	if op == opChown {
		u, g := int32(args[0]), int32(args[1])
		if (u != -1 && uint32(u) != st.Uid) || (g != -1 && uint32(g) != st.Gid && int(g) != gid) {
			return unix.EPERM
		}
	}
	return 0
}

// fsids are thread tid's filesystem uid and gid (proc(5): the fourth
// field of Uid: and Gid:).
func fsids(tid int) (int, int) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return -1, -1
	}
	uid, gid := -1, -1
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 5 && (f[0] == "Uid:" || f[0] == "Gid:") {
			n, _ := strconv.Atoi(f[4])
			if f[0] == "Uid:" {
				uid = n
			} else {
				gid = n
			}
		}
	}
	return uid, gid
}

// times reads a call's times argument as two timespecs (nil: now).
func times(t target, op metaOp, addr uintptr) ([]unix.Timespec, unix.Errno) {
	if addr == 0 {
		return nil, 0
	}
	switch op {
	case opUtime: // struct utimbuf { time_t actime, modtime; }
		b, errno := read(t, addr, 16)
		if errno != 0 {
			return nil, errno
		}
		return []unix.Timespec{{Sec: int64(ne.Uint64(b))}, {Sec: int64(ne.Uint64(b[8:]))}}, 0
	case opUtimes: // struct timeval[2]
		b, errno := read(t, addr, 32)
		if errno != 0 {
			return nil, errno
		}
		us := func(o int) unix.Timespec {
			return unix.Timespec{Sec: int64(ne.Uint64(b[o:])), Nsec: int64(ne.Uint64(b[o+8:])) * 1000}
		}
		return []unix.Timespec{us(0), us(16)}, 0
	}
	b, errno := read(t, addr, 32)
	if errno != 0 {
		return nil, errno
	}
	return []unix.Timespec{{Sec: int64(ne.Uint64(b)), Nsec: int64(ne.Uint64(b[8:]))}, {Sec: int64(ne.Uint64(b[16:])), Nsec: int64(ne.Uint64(b[24:]))}}, 0
}

// readString copies a NUL-terminated string (at most PATH_MAX) from the
// caller's memory, a page at a time (the string may end just before an
// unmapped page).
func readString(t target, addr uintptr) (string, unix.Errno) {
	if addr == 0 {
		return "", unix.EFAULT
	}
	var out []byte
	for len(out) < unix.PathMax {
		n := 4096 - int(addr%4096)
		b, errno := read(t, addr, n)
		if errno != 0 {
			return "", errno
		}
		if i := indexNUL(b); i >= 0 {
			return string(append(out, b[:i]...)), 0
		}
		out = append(out, b...)
		addr += uintptr(n)
	}
	return "", unix.ENAMETOOLONG
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

func errnoOf(err error) unix.Errno {
	if err == nil {
		return 0
	}
	if e, ok := err.(unix.Errno); ok {
		return e
	}
	return unix.EPERM
}
