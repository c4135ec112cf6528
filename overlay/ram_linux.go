package overlay

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/internal/fsutil"
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

// ramFD is the init's end of the socket the tmpfs descriptor goes back on.
const ramFD = 5

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

// mountRAM mounts the RAM upper over root (init side) and moves the tree
// the parent prepared there onto it. It returns a descriptor of the
// tmpfs's root, to send to the parent.
func mountRAM(root string, size int64) (int, error) {
	// The prepared tree stays reachable through this descriptor once the
	// tmpfs covers its path.
	src, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(src)
	// nosuid: a setuid file the command leaves there is inert even where
	// it would be run from the upper dir directly (--keep's copy is made
	// without the bits anyway). No nodev: overlayfs makes its whiteouts
	// (0/0 character devices) in the upper fs.
	opts := fmt.Sprintf("size=%d,mode=0700", size)
	if err := unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID, opts); err != nil {
		return -1, err
	}
	// The trailing slash makes WalkDir's lstat of the root follow the
	// magic link to the directory.
	if err := copyTree(fmt.Sprintf("/proc/self/fd/%d/", src), root, false); err != nil {
		return -1, fmt.Errorf("copy the hypothesis's files onto it: %w", err)
	}
	return unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}

// sendFD passes fd over the unix socket sock (SCM_RIGHTS).
func sendFD(sock, fd int) error {
	return unix.Sendmsg(sock, []byte{'r'}, unix.UnixRights(fd), nil, 0)
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

// copyTree copies the tree at src into the existing directory dst:
// directories, regular files and symlinks with their modes; with keep
// (--keep's copy out of a RAM upper, which the command wrote) also
// whiteouts and mtimes (make and cargo compare them), and never a setuid
// or setgid bit. Anything else (FIFOs, sockets, devices) is left out.
// Directory modes are set last, so an unwritable one still gets its
// contents. The tree under src is not followed through symlinks
// (WalkDir uses lstat).
func copyTree(src, dst string, keep bool) error {
	type dirMode struct {
		path  string
		mode  fs.FileMode
		mtime time.Time
	}
	var dirs []dirMode
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		perm := fi.Mode().Perm()
		if !keep {
			perm |= fi.Mode() & (fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		}
		switch {
		case fi.IsDir():
			if rel != "." {
				if err := os.Mkdir(to, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
					return err
				}
			}
			dirs = append(dirs, dirMode{to, perm, fi.ModTime()})
			return nil
		case fi.Mode().IsRegular():
			if err := copyFile(p, to, perm); err != nil {
				return err
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, to); err != nil {
				return err
			}
		case keep && isWhiteout(fi):
			// Unprivileged 0/0 character devices (whiteouts) may be made
			// since Linux 5.8 (vfs_mknod's WHITEOUT_DEV exception).
			// Where that fails the deletion is only missing from the copy.
			_ = unix.Mknod(to, unix.S_IFCHR, 0)
			return nil
		default:
			return nil
		}
		if keep {
			_ = unix.Lutimes(to, []unix.Timeval{unix.NsecToTimeval(fi.ModTime().UnixNano()), unix.NsecToTimeval(fi.ModTime().UnixNano())})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		if err := os.Chmod(d.path, d.mode); err != nil {
			return err
		}
		if keep {
			_ = os.Chtimes(d.path, d.mtime, d.mtime)
		}
	}
	return nil
}

func copyFile(from, to string, perm fs.FileMode) error {
	in, err := os.OpenFile(from, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	// Chmod after writing: the create mode is masked by the umask.
	return os.Chmod(to, perm)
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
	if err := copyTree(upper, keepDir, true); err != nil {
		_ = fsutil.RemoveTree(keepDir)
	}
}
