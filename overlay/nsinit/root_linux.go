package nsinit

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Without a user namespace (shadow run as root) the command is uid 0 of the
// host. With every capability gone it still passes permission checks as a
// file's owner: it could write a block device under the checkout's
// filesystem (/dev/loop0 is root:disk 0660), /proc/sys/kernel/core_pattern
// or sysfs. So, as runc and bubblewrap do for a container's root:
//   - /dev is a fresh tmpfs holding only null, zero, full, random, urandom
//     and tty (nodes of the host's device numbers, made with mknod(2) where
//     the init may, as root; bind mounts of the host's nodes in a user
//     namespace, which may not make device nodes: user_namespaces(7)), a
//     new devpts instance and a tmpfs /dev/shm;
//   - /sys and every mount below it, /proc/sys and runc's other read-only
//     /proc paths are remounted read-only;
//   - runc's masked paths are covered (directories by an empty read-only
//     tmpfs, files by /dev/null).
//
// The alternative, a user namespace mapping uid 0 to an unprivileged
// outside uid, would make every root-owned file of the checkout appear as
// nobody's and unwritable, and the command would no longer see the uid it
// runs as outside.

var (
	devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}
	// runc's default spec (libcontainer/specconv.Example, containerd's
	// oci.WithDefaultSpec).
	readonlyPaths = []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}
	maskedPaths   = []string{"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
		"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware",
		"/sys/devices/virtual/powercap"}
)

// restrictRoot applies the above; it returns the failed stage.
func restrictRoot(freshProc bool) (string, error) {
	if err := readonlyTree("/sys"); err != nil {
		return "make /sys read-only", err
	}
	if freshProc {
		for _, p := range readonlyPaths {
			if _, err := os.Stat(p); err != nil {
				continue
			}
			if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				return "make " + p + " read-only", err
			}
			if err := readonlyTree(p); err != nil {
				return "make " + p + " read-only", err
			}
		}
	} else if err := readonlyTree("/proc"); err != nil {
		// The outer /proc is all the command has: keep it read-only.
		return "make /proc read-only", err
	}
	for _, p := range maskedPaths {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			err = unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0555")
		} else {
			err = unix.Mount("/dev/null", p, "", unix.MS_BIND, "")
		}
		if err != nil {
			return "mask " + p, err
		}
	}
	return "", nil
}

// minimalDev replaces /dev with a tmpfs holding only harmless nodes. The
// host's nodes are opened (O_PATH) before the tmpfs hides them. As root
// each is made again on the tmpfs with the host's device number, mode and
// owner (mknod(2): a node of the tmpfs's own, one syscall where a bind
// mount is a mount more to make and to tear down with the namespace);
// where that is refused (a user namespace, a device cgroup), it is bound
// from /proc/self/fd/N, which mount(2) follows like any path.
func minimalDev() error {
	fds := map[string]int{}
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for _, n := range devNodes {
		fd, err := unix.Open("/dev/"+n, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // e.g. no /dev/tty in some containers
		}
		fds[n] = fd
	}
	if err := unix.Mount("tmpfs", "/dev", "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return err
	}
	root := os.Getuid() == 0
	for _, n := range devNodes {
		fd, ok := fds[n]
		if !ok {
			continue
		}
		p := "/dev/" + n
		if root && makeNode(p, fd) {
			continue
		}
		if err := os.WriteFile(p, nil, 0o666); err != nil {
			return err
		}
		if err := unix.Mount(fmt.Sprintf("/proc/self/fd/%d", fd), p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind %s: %w", p, err)
		}
	}
	for _, d := range []string{"/dev/pts", "/dev/shm"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return fmt.Errorf("mount devpts: %w", err)
	}
	if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777,"+tmpSize); err != nil {
		return fmt.Errorf("mount /dev/shm: %w", err)
	}
	noteOwnMount("/dev/shm")
	for link, target := range map[string]string{"ptmx": "pts/ptmx", "fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, "/dev/"+link); err != nil {
			return err
		}
	}
	// Read-only from now on: nothing can be added to it.
	return unix.Mount("", "/dev", "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NOEXEC, "")
}

// readonlyTree makes root and every mount below it read-only in this
// namespace only. mount_setattr(2) with AT_RECURSIVE (Linux 5.12) does it
// in one call; older kernels get one bind remount per mount point, which
// changes only the mount, not the filesystem (mount(2), MS_REMOUNT|
// MS_BIND), keeping the flags it has, as it must where they are locked.
func readonlyTree(root string) error {
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, root, unix.AT_RECURSIVE|unix.AT_NO_AUTOMOUNT, &attr); err == nil {
		return nil
	}
	mps, err := mountPoints()
	if err != nil {
		return err
	}
	for _, mp := range mps {
		if mp != root && !strings.HasPrefix(mp, root+"/") {
			continue
		}
		var sfs unix.Statfs_t
		if err := unix.Statfs(mp, &sfs); err != nil {
			continue // covered by a later mount
		}
		keep := uintptr(sfs.Flags) & (unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC | unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_RELATIME)
		if err := unix.Mount("", mp, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|keep, ""); err != nil {
			return fmt.Errorf("remount %s read-only: %w", mp, err)
		}
	}
	return nil
}

// mountPoints lists this namespace's mount points from
// /proc/self/mountinfo (proc(5)), unescaping \040 and friends.
func mountPoints() ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		out = append(out, filepath.Clean(UnescapeMountinfo(fields[4])))
	}
	return out, sc.Err()
}

// UnescapeMountinfo undoes the octal escapes of a /proc/PID/mountinfo field
// (proc(5): space, tab, newline and backslash are written \NNN).
func UnescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// makeNode makes p a character device node like the one fd (O_PATH) is
// open on: same device number, permissions and owner. It reports whether
// it did; a half-made node is removed.
func makeNode(p string, fd int) bool {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return false
	}
	if unix.Mknod(p, unix.S_IFCHR|(st.Mode&0o777), int(st.Rdev)) != nil {
		return false
	}
	// mknod(2) applies the umask; chmod does not.
	if unix.Chmod(p, st.Mode&0o777) != nil || unix.Lchown(p, int(st.Uid), int(st.Gid)) != nil {
		_ = unix.Unlink(p)
		return false
	}
	return true
}
