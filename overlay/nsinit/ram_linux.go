package nsinit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The init's side of a RAM upper (--upper ram; overlay/ram_linux.go has
// the design and the parent's side).

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
	if err := CopyTree(fmt.Sprintf("/proc/self/fd/%d/", src), root, false); err != nil {
		return -1, fmt.Errorf("copy the hypothesis's files onto it: %w", err)
	}
	return unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}

// sendFD passes fd over the unix socket sock (SCM_RIGHTS).
func sendFD(sock, fd int) error {
	return unix.Sendmsg(sock, []byte{'r'}, unix.UnixRights(fd), nil, 0)
}

// CopyTree copies the tree at src into the existing directory dst:
// directories, regular files and symlinks with their modes; with keep
// (--keep's copy out of a RAM upper, which the command wrote) also
// whiteouts, opaque markers and mtimes (make and cargo compare them), and never a setuid
// or setgid bit. Anything else (FIFOs, sockets, devices) is left out.
// Directory modes are set last, so an unwritable one still gets its
// contents. The tree under src is not followed through symlinks
// (WalkDir uses lstat).
func CopyTree(src, dst string, keep bool) error {
	type dirMode struct {
		path  string
		mode  fs.FileMode
		mtime time.Time
	}
	var dirs []dirMode
	// With keep, the copy must take no more disk than the capped tmpfs it
	// comes from (the command chose what is there): a file hard-linked a
	// hundred times is linked again, not copied a hundred times (cargo
	// links its outputs too), and holes stay holes (copyFile).
	type inode struct{ dev, ino uint64 }
	linked := map[inode]string{}
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
			if keep {
				copyOpaque(p, to)
			}
			dirs = append(dirs, dirMode{to, perm, fi.ModTime()})
			return nil
		case fi.Mode().IsRegular():
			st, _ := fi.Sys().(*syscall.Stat_t)
			if keep && st != nil && st.Nlink > 1 {
				id := inode{uint64(st.Dev), st.Ino}
				if first, ok := linked[id]; ok {
					return os.Link(first, to)
				}
				linked[id] = to
			}
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
	if err := copyData(in, out); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	// Chmod after writing: the create mode is masked by the umask.
	return os.Chmod(to, perm)
}

// copyData copies in's data regions only (lseek(2) SEEK_DATA/SEEK_HOLE,
// which tmpfs and the disk filesystems support) and sets out's size: a
// sparse file's holes stay holes, so a file of a terabyte's apparent size
// in a RAM upper of a gigabyte costs what it holds. Where seeking for data
// is refused, a plain copy.
func copyData(in, out *os.File) error {
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	fd := int(in.Fd())
	for off := int64(0); off < size; {
		data, err := unix.Seek(fd, off, unix.SEEK_DATA)
		if errors.Is(err, unix.ENXIO) {
			break // only a hole is left
		}
		if err != nil {
			if off == 0 && errors.Is(err, unix.EINVAL) {
				if _, err := in.Seek(0, io.SeekStart); err != nil {
					return err
				}
				_, err = io.Copy(out, in)
				return err
			}
			return err
		}
		hole, err := unix.Seek(fd, data, unix.SEEK_HOLE)
		if err != nil {
			return err
		}
		if _, err := in.Seek(data, io.SeekStart); err != nil {
			return err
		}
		if _, err := out.Seek(data, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.CopyN(out, in, hole-data); err != nil {
			return err
		}
		off = hole
	}
	return out.Truncate(size)
}

// copyOpaque carries overlayfs's opaque marker (a directory deleted and
// made again: the lower one's entries are hidden) over to a kept copy,
// under the same name: trusted.overlay.opaque, or user.overlay.opaque
// with userxattr (overlayfs(5)). Setting trusted.* needs CAP_SYS_ADMIN,
// which root has and a user namespace's upper never uses.
func copyOpaque(from, to string) {
	buf := make([]byte, 4)
	for _, name := range []string{"trusted.overlay.opaque", "user.overlay.opaque"} {
		if n, err := unix.Lgetxattr(from, name, buf); err == nil && n > 0 {
			_ = unix.Lsetxattr(to, name, buf[:n], 0)
		}
	}
}

// isWhiteout: overlayfs records a deletion as a character device 0/0.
func isWhiteout(fi fs.FileInfo) bool {
	if fi.Mode()&fs.ModeCharDevice == 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Rdev == 0
}
