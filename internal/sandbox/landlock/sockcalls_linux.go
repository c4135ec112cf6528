package landlock

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The calls the socket guard performs for a sealed command. Each reads
// the caller's arguments once into the helper's memory, decides on that
// copy (dest), and performs the call on the caller's own socket
// (sockGuard.sock) with that copy, returning what the kernel returned.

const (
	maxAddr  = 128      // sizeof(struct sockaddr_storage)
	maxData  = 16 << 20 // a larger send is performed short, as a stream may be
	maxIov   = 1024     // UIO_MAXIOV
	maxCtl   = 1 << 16
	msghdrSz = 56 // struct msghdr on a 64-bit ABI
	mmsgSz   = 64 // struct mmsghdr: msghdr, msg_len, padding
)

func (g *sockGuard) connect(id uint64, t target, fd int, addr uintptr, alen int) (int64, unix.Errno) {
	if alen < 0 || alen > maxAddr {
		return 0, unix.EINVAL
	}
	sa, errno := read(t, addr, alen)
	if errno != 0 {
		return 0, errno
	}
	s, errno := g.sock(t, fd)
	if errno != 0 {
		return 0, errno
	}
	defer unix.Close(s)
	dest, done, errno := g.dest(t, s, sa)
	if errno != 0 {
		return 0, errno
	}
	defer done()
	if !g.valid(id) {
		return 0, unix.EINTR
	}
	_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(s), bufPtr(dest), uintptr(len(dest)))
	runtime.KeepAlive(dest)
	return 0, e
}

func (g *sockGuard) sendto(id uint64, t target, fd int, buf uintptr, n, flags int, addr uintptr, alen int) (int64, unix.Errno) {
	if alen < 0 || alen > maxAddr {
		return 0, unix.EINVAL
	}
	sa, errno := read(t, addr, alen)
	if errno != 0 {
		return 0, errno
	}
	data, errno := read(t, buf, clampLen(n))
	if errno != 0 {
		return 0, errno
	}
	s, errno := g.sock(t, fd)
	if errno != 0 {
		return 0, errno
	}
	defer unix.Close(s)
	dest, done, errno := g.dest(t, s, sa)
	if errno != 0 {
		return 0, errno
	}
	defer done()
	if !g.valid(id) {
		return 0, unix.EINTR
	}
	r, _, e := unix.Syscall6(unix.SYS_SENDTO, uintptr(s), bufPtr(data), uintptr(len(data)), uintptr(flags), bufPtr(dest), uintptr(len(dest)))
	runtime.KeepAlive(data)
	runtime.KeepAlive(dest)
	return int64(r), e
}

func (g *sockGuard) sendmsg(id uint64, t target, fd int, msgp uintptr, flags int) (int64, unix.Errno) {
	hdr, errno := read(t, msgp, msghdrSz)
	if errno != 0 {
		return 0, errno
	}
	s, errno := g.sock(t, fd)
	if errno != 0 {
		return 0, errno
	}
	defer unix.Close(s)
	if !g.valid(id) {
		return 0, unix.EINTR
	}
	return g.sendOne(t, s, hdr, flags)
}

func (g *sockGuard) sendmmsg(id uint64, t target, fd int, vec uintptr, vlen, flags int) (int64, unix.Errno) {
	vlen = min(vlen, maxIov)
	if vlen <= 0 {
		return 0, 0
	}
	hdrs, errno := read(t, vec, vlen*mmsgSz)
	if errno != 0 {
		return 0, errno
	}
	s, errno := g.sock(t, fd)
	if errno != 0 {
		return 0, errno
	}
	defer unix.Close(s)
	if !g.valid(id) {
		return 0, unix.EINTR
	}
	sent := 0
	for i := 0; i < vlen; i++ {
		n, errno := g.sendOne(t, s, hdrs[i*mmsgSz:i*mmsgSz+msghdrSz], flags)
		if errno != 0 {
			if sent == 0 {
				return 0, errno
			}
			break
		}
		var l [4]byte
		ne.PutUint32(l[:], uint32(n))
		if errno := write(t, vec+uintptr(i*mmsgSz+msghdrSz), l[:]); errno != 0 {
			return 0, errno
		}
		sent++
	}
	return int64(sent), 0
}

// sendOne performs one struct msghdr (hdr, as the caller laid it out) on
// s: its name checked by dest, its iovecs gathered into one buffer, its
// SCM_RIGHTS descriptors taken from the caller.
func (g *sockGuard) sendOne(t target, s int, hdr []byte, flags int) (int64, unix.Errno) {
	name, namelen := uintptr(ne.Uint64(hdr[0:])), int(ne.Uint32(hdr[8:]))
	iov, iovlen := uintptr(ne.Uint64(hdr[16:])), int(ne.Uint64(hdr[24:]))
	ctl, ctllen := uintptr(ne.Uint64(hdr[32:])), int(ne.Uint64(hdr[40:]))
	if namelen > maxAddr || iovlen > maxIov || iovlen < 0 {
		return 0, unix.EINVAL
	}
	if ctllen > maxCtl || ctllen < 0 {
		return 0, unix.ENOBUFS
	}
	var data []byte
	if iovlen > 0 {
		vecs, errno := read(t, iov, iovlen*16)
		if errno != 0 {
			return 0, errno
		}
		for i := 0; i < iovlen && len(data) < maxData; i++ {
			base, l := uintptr(ne.Uint64(vecs[i*16:])), int(ne.Uint64(vecs[i*16+8:]))
			b, errno := read(t, base, min(clampLen(l), maxData-len(data)))
			if errno != 0 {
				return 0, errno
			}
			data = append(data, b...)
		}
	}
	var dest []byte
	if name != 0 && namelen > 0 {
		sa, errno := read(t, name, namelen)
		if errno != 0 {
			return 0, errno
		}
		d, done, errno := g.dest(t, s, sa)
		if errno != 0 {
			return 0, errno
		}
		defer done()
		dest = d
	}
	control, fds, errno := g.rights(t, ctl, ctllen)
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	if errno != 0 {
		return 0, errno
	}
	msg := unix.Msghdr{Namelen: uint32(len(dest)), Controllen: uint64(len(control))}
	if len(dest) > 0 {
		msg.Name = &dest[0]
	}
	if len(control) > 0 {
		msg.Control = &control[0]
	}
	var v unix.Iovec
	if len(data) > 0 {
		v = unix.Iovec{Base: &data[0], Len: uint64(len(data))}
		msg.Iov, msg.Iovlen = &v, 1
	}
	r, _, e := unix.Syscall(unix.SYS_SENDMSG, uintptr(s), uintptr(unsafe.Pointer(&msg)), uintptr(flags))
	runtime.KeepAlive(data)
	runtime.KeepAlive(dest)
	runtime.KeepAlive(control)
	return int64(r), e
}

// rights copies the caller's control messages, each SCM_RIGHTS
// descriptor replaced by the helper's duplicate of it (returned to be
// closed once sent). SCM_CREDENTIALS is passed as it is: the kernel
// checks it against the helper, so a command's own pid there is refused
// (EPERM) unless shadow runs as root.
func (g *sockGuard) rights(t target, ctl uintptr, n int) ([]byte, []int, unix.Errno) {
	if ctl == 0 || n == 0 {
		return nil, nil, 0
	}
	b, errno := read(t, ctl, n)
	if errno != 0 {
		return nil, nil, errno
	}
	var fds []int
	for off := 0; off+unix.SizeofCmsghdr <= len(b); {
		l := int(ne.Uint64(b[off:]))
		if l < unix.SizeofCmsghdr || off+l > len(b) {
			return nil, fds, unix.EINVAL
		}
		level, typ := int32(ne.Uint32(b[off+8:])), int32(ne.Uint32(b[off+12:]))
		if level == unix.SOL_SOCKET && typ == unix.SCM_RIGHTS {
			for p := off + unix.SizeofCmsghdr; p+4 <= off+l; p += 4 {
				theirs := int(int32(ne.Uint32(b[p:])))
				mine, err := unix.PidfdGetfd(t.pidfd, theirs, 0)
				if err != nil {
					return nil, fds, unix.EBADF
				}
				fds = append(fds, mine)
				ne.PutUint32(b[p:], uint32(mine))
			}
		}
		off += (l + 7) &^ 7
	}
	return b, fds, 0
}

// dest decides on address sa (the helper's copy) for socket s and
// returns the address to use and what to close after the call:
//
//   - a pathname unix socket: allowed only where it resolves (symlinks
//     followed, as connect(2) does) beneath one of the command's Write
//     directories; the helper opens it (O_PATH) and connects to
//     /proc/self/fd/N, so the file it checked is the one reached, even if
//     the path is renamed or relinked meanwhile. Elsewhere EACCES, as
//     Landlock's own refusal reads.
//   - an abstract unix socket: only one a process of the command's tree
//     holds (Landlock's abstract-socket scope, which a call performed
//     from outside the domain would skip).
//   - TCP with --net isolated: only the allowed ports (Landlock's rule,
//     likewise).
func (g *sockGuard) dest(t target, s int, sa []byte) ([]byte, func(), unix.Errno) {
	none := func() {}
	if len(sa) < 2 {
		return sa, none, 0
	}
	switch ne.Uint16(sa) {
	case unix.AF_UNIX:
		if len(sa) <= 2 {
			return sa, none, 0
		}
		if sa[2] == 0 {
			if g.ownAbstract(sa[3:]) {
				return sa, none, 0
			}
			return nil, none, unix.EACCES
		}
		p := sa[2:]
		if i := bytes.IndexByte(p, 0); i >= 0 {
			p = p[:i]
		}
		fd, errno := g.resolve(t, s, string(p))
		if errno != 0 {
			return nil, none, errno
		}
		out := make([]byte, 2, 2+32)
		ne.PutUint16(out, unix.AF_UNIX)
		out = append(append(out, "/proc/self/fd/"+strconv.Itoa(fd)...), 0)
		return out, func() { unix.Close(fd) }, 0
	case unix.AF_INET, unix.AF_INET6:
		if g.net && len(sa) >= 4 && tcp(s) {
			port := binary.BigEndian.Uint16(sa[2:])
			for _, p := range g.ports {
				if p == port {
					return sa, none, 0
				}
			}
			return nil, none, unix.EACCES
		}
	}
	return sa, none, 0
}

// resolve opens pathname socket p as the caller names it (relative to
// its working directory; /proc/self as the caller's) and returns an
// O_PATH fd of it when it lies beneath a root (or, for a guard of
// overlay mode, when own says it is the command's: GuardSockets).
func (g *sockGuard) resolve(t target, s int, p string) (int, unix.Errno) {
	for _, self := range []string{"/proc/self/", "/proc/thread-self/"} {
		if rest, ok := strings.CutPrefix(p, self); ok {
			p = "/proc/" + strconv.Itoa(t.tid) + "/" + rest
		}
	}
	dir := unix.AT_FDCWD
	if !filepath.IsAbs(p) {
		cwd, err := unix.Open("/proc/"+strconv.Itoa(t.tid)+"/cwd", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, unix.EACCES
		}
		defer unix.Close(cwd)
		dir = cwd
	}
	fd, err := unix.Openat(dir, p, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if e, ok := err.(unix.Errno); ok && (e == unix.ENOENT || e == unix.ENOTDIR || e == unix.ELOOP || e == unix.ENAMETOOLONG) {
			return -1, e // what connect(2) says of such a path
		}
		return -1, unix.EACCES
	}
	if g.own != nil {
		if g.own(s, fd) {
			return fd, 0
		}
		unix.Close(fd)
		return -1, unix.EACCES
	}
	real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err == nil && g.beneath(real) {
		return fd, 0
	}
	unix.Close(fd)
	return -1, unix.EACCES
}

func (g *sockGuard) beneath(p string) bool {
	for _, r := range g.rootsResolved() {
		if p == r || strings.HasPrefix(p, r+"/") || r == "/" {
			return true
		}
	}
	return false
}

// tcp says whether s is a TCP (or MPTCP) stream socket, the sockets
// Landlock's net rules cover.
func tcp(s int) bool {
	typ, err1 := unix.GetsockoptInt(s, unix.SOL_SOCKET, unix.SO_TYPE)
	proto, err2 := unix.GetsockoptInt(s, unix.SOL_SOCKET, unix.SO_PROTOCOL)
	return err1 == nil && err2 == nil && typ == unix.SOCK_STREAM && (proto == unix.IPPROTO_TCP || proto == unix.IPPROTO_MPTCP)
}

// clampLen bounds a length the command passed (a size_t, negative here
// when it is huge) to what the guard copies.
func clampLen(n int) int {
	if n < 0 || n > maxData {
		return maxData
	}
	return n
}

func bufPtr(b []byte) uintptr {
	if len(b) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(&b[0]))
}
