package overlay

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/internal/fsutil"
	"github.com/shadow-dev/shadow/overlay/nsinit"
)

// A RAM upper (--upper ram) is a size-capped tmpfs holding one
// hypothesis's upper and work dirs, for build outputs that would
// otherwise go through the disk's page cache and writeback.
//
// The tmpfs is mounted by the init, inside the sandbox's own user and
// mount namespaces (tmpfs is mountable there, FS_USERNS_MOUNT), over the
// hypothesis's directory the parent prepared on disk: upper/, work/ and
// the git dirs' uppers, with the hypothesis's files already written. The
// init copies that small tree onto the tmpfs, so every path in the
// configuration stays the same. Nothing outside the namespace sees the
// mount; the parent gets at it through a descriptor the init sends it
// over a unix socket (SCM_RIGHTS, unix(7)) right after the mount. That
// descriptor keeps the tmpfs alive after the namespace is gone (a
// detached mount lives as long as something references it, like a lazy
// umount(2)), so shadow collects the JUnit file, the changed paths and
// --keep's copy exactly as from a disk upper, and closing it frees the
// memory: there is nothing to delete.
//
// Overlayfs over a tmpfs upper in a user namespace needs user.* xattrs
// on tmpfs (userxattr; Linux 6.6). A full tmpfs gives the command ENOSPC,
// as a full disk would; the sandbox then adds a warning to the result.

// DefaultRAMSize is the cap of one hypothesis's RAM upper when
// --upper-size is not given: a quarter of physical memory (tmpfs's own
// default is half, mount(8)), so two hypotheses filling theirs still
// leave half of it to the commands themselves.
func DefaultRAMSize() int64 {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil || si.Totalram == 0 {
		return 2 << 30
	}
	return int64(si.Totalram) * int64(si.Unit) / 4
}

// RAM makes every hypothesis's upper and work dirs a tmpfs of at most
// size bytes (0: DefaultRAMSize). It returns s for chaining.
func (s *Sandbox) RAM(size int64) *Sandbox {
	if size <= 0 {
		size = DefaultRAMSize()
	}
	s.ram = size
	return s
}

// Upper says where upper dirs live: "disk" or "ram".
func (s *Sandbox) Upper() string {
	if s.ram > 0 {
		return "ram"
	}
	return "disk"
}

// ramLink is the parent's side of a RAM upper: the socket pair whose
// child end the init gets as ramFD.
type ramLink struct {
	parent, child *os.File
	fd            int // the tmpfs's root, once received; -1 before
	size          int64
}

func newRAMLink(size int64) (*ramLink, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket for the RAM upper: %w", err)
	}
	return &ramLink{parent: os.NewFile(uintptr(fds[0]), "ram-parent"), child: os.NewFile(uintptr(fds[1]), "ram-child"), fd: -1, size: size}, nil
}

// receive takes the descriptor the init sent, once the init has exited:
// a message queued on a unix socket keeps its descriptors in flight after
// the sender is gone. It returns the directory to read the tmpfs through
// ("/proc/self/fd/N"), or "" when the init died before it sent one.
func (l *ramLink) receive() string {
	// Our copy of the child end: closed, so a socket nothing was sent on
	// reads as end of file instead of blocking.
	l.child.Close()
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(int(l.parent.Fd()), buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil || n != 1 || oobn == 0 {
		return ""
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return ""
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return ""
	}
	l.fd = fds[0]
	return fmt.Sprintf("/proc/self/fd/%d", l.fd)
}

// full reports whether the tmpfs ran out of blocks or inodes: what the
// command got ENOSPC from. Less than 1% or 1 MiB free counts as full (a
// write that failed usually leaves the file it was writing).
func (l *ramLink) full() (used int64, full bool) {
	if l.fd < 0 {
		return 0, false
	}
	var st unix.Statfs_t
	if err := unix.Fstatfs(l.fd, &st); err != nil {
		return 0, false
	}
	total, free := int64(st.Blocks)*st.Bsize, int64(st.Bfree)*st.Bsize
	return total - free, free < max(total/100, 1<<20) || (st.Files > 0 && st.Ffree == 0)
}

// warning is the result's warning for a RAM upper that filled up.
func (l *ramLink) warning() string {
	used, full := l.full()
	if !full {
		return ""
	}
	return fmt.Sprintf("the RAM upper (--upper ram, %s cap) filled up (%s used): the command's writes failed with ENOSPC (no space left on device); give it more with --upper-size, or use --upper disk", sizeString(l.size), sizeString(used))
}

func (l *ramLink) Close() {
	l.parent.Close()
	l.child.Close()
	if l.fd >= 0 {
		unix.Close(l.fd)
		l.fd = -1
	}
}

func sizeString(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// childEnd is what startInit hands the init after its two pipes: the
// socket end it sends the tmpfs on (ramFD), or nothing for a disk upper.
func (l *ramLink) childEnd() []*os.File {
	if l == nil {
		return nil
	}
	return []*os.File{l.child}
}

// keepRAM is --keep's copy of a RAM upper: the tmpfs is gone once its
// descriptor is closed, so what the command wrote is copied out (a disk
// upper is renamed). A failed copy is removed rather than kept half-made.
func keepRAM(upper, keepDir string) {
	if err := os.Mkdir(keepDir, 0o700); err != nil {
		return
	}
	if err := nsinit.CopyTree(upper, keepDir, true); err != nil {
		_ = fsutil.RemoveTree(keepDir)
	}
}
