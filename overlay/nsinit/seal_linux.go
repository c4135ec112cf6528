package nsinit

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// The seal: outside the workspace, a hypothesis writes only into places
// that are its own and vanish with it. As bubblewrap's `--ro-bind / /`:
// every mount of the view, submounts included, is made read-only, and only
// what the init mounted for this hypothesis is writable again:
//
//   - the overlays (the workspace, a worktree's git dir, $HOME, --writable
//     paths, caches outside $HOME), each with its own upper dir;
//   - /tmp and /var/tmp: a fresh tmpfs each, capped (or with --tmp shared
//     the host's, bound writable: the opt-out for a suite that talks to a
//     host service through a socket there);
//   - /dev/shm: always a fresh capped tmpfs. It is memory, not disk: a
//     hypothesis filling the host's pins RAM past its own end and gets its
//     siblings OOM-killed, and POSIX shm and semaphores there are a channel
//     between siblings. Nothing a suite needs from the host lives there.
//   - the fresh /proc.
//
// The read-only step comes after the overlays are mounted, not before:
// overlayfs clones the upper dir's mount when it mounts (clone_private_mount
// in fs/overlayfs/super.c) and writes through that clone, which keeps the
// read-only flag the upper dir's mount had at that moment. Turning a mount
// read-only changes this namespace's mount only (mount_setattr(2),
// MOUNT_ATTR_RDONLY), never the filesystem, so the host keeps writing.

// tmpSize caps each private tmpfs: LimitConfig.TmpBytes, else a quarter
// of RAM (tmpfs(5) takes a percentage), where tmpfs's own default is
// half. Pages a hypothesis puts there count against its memory cgroup
// where one is set (--memory). setupMounts sets it.
var tmpSize = "size=25%"

// tmpDirs are the host's shared temporary directories.
var tmpDirs = []string{"/tmp", "/var/tmp"}

// isDir reports whether p is a directory, not following a last symlink
// (/var/tmp or /dev/shm may be a symlink, which mount(2) would follow to
// somewhere else).
func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

// mountTmp sets up /tmp, /var/tmp and /dev/shm; it returns the mount
// points to make writable again after the read-only step, and the mounts
// that now hide their old content (where layers must be made again).
func mountTmp(shared, root bool) (writable, fresh []string, stage string, err error) {
	for _, d := range tmpDirs {
		if !isDir(d) {
			continue
		}
		if shared {
			// A bind of the host's directory onto itself: a mount of its
			// own, which the read-only step covers and the init then makes
			// writable alone (its submounts stay read-only).
			if err := unix.Mount(d, d, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				return nil, nil, "bind the host's " + d + " (--tmp shared)", err
			}
		} else {
			if err := unix.Mount("tmpfs", d, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777,"+tmpSize); err != nil {
				return nil, nil, "mount tmpfs on " + d, err
			}
			fresh = append(fresh, d)
		}
		writable = append(writable, d)
	}
	// The init replaces all of /dev later, a private /dev/shm included
	// (minimalDev in root_linux.go).
	return writable, fresh, "", nil
}

// seal makes every mount read-only, then the given mount points writable
// again (each the topmost mount at its path, one mount each: what lies
// below them stays read-only).
func seal(writable []string) (string, error) {
	if err := readonlyTree("/"); err != nil {
		return "make / read-only", err
	}
	for _, p := range writable {
		if err := makeWritable(p); err != nil {
			return "make " + p + " writable again", err
		}
	}
	return "", nil
}

// makeWritable clears the read-only flag of the mount at p. Mounts this
// init made are not locked (mount_namespaces(7): only flags a less
// privileged namespace inherited are), so this works in a user namespace
// too. Before Linux 5.12 (no mount_setattr) a bind remount without
// MS_RDONLY does the same, keeping the flags the mount has.
func makeWritable(p string) error {
	attr := unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
	err := unix.MountSetattr(unix.AT_FDCWD, p, unix.AT_NO_AUTOMOUNT, &attr)
	if err == nil || !errors.Is(err, unix.ENOSYS) {
		return err
	}
	var sfs unix.Statfs_t
	if err := unix.Statfs(p, &sfs); err != nil {
		return err
	}
	keep := uintptr(sfs.Flags) & (unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC | unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_RELATIME)
	return unix.Mount("", p, "", unix.MS_REMOUNT|unix.MS_BIND|keep, "")
}

// submount is a mount below an overlaid directory, held open so it can be
// bound again inside the overlay once that covers its path.
type submount struct {
	path string
	fd   int
}

// openSubmounts opens every mount point strictly below target that is
// not below another of the layers (those get their own overlay) and not
// below an earlier submount (MS_REC brings those along).
func openSubmounts(target string, layers []string) ([]submount, error) {
	mps, err := mountPoints()
	if err != nil {
		return nil, err
	}
	sort.Strings(mps)
	var out []submount
next:
	for _, mp := range mps {
		if mp == target || !within(mp, target) {
			continue
		}
		for _, l := range layers {
			if l != target && within(mp, l) {
				continue next
			}
		}
		for _, s := range out {
			if within(mp, s.path) {
				continue next
			}
		}
		fd, err := unix.Open(mp, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // covered by a later mount, or not a directory
		}
		out = append(out, submount{mp, fd})
	}
	return out, nil
}

// bindSubmounts binds each submount back at its path, now inside the
// overlay (a mount point is a directory of the filesystem below, so it
// exists in the overlay's lower layer). They become read-only with the
// rest of the view.
func bindSubmounts(subs []submount) (string, error) {
	for _, s := range subs {
		if !isDir(s.path) {
			continue
		}
		if err := unix.Mount(fmt.Sprintf("/proc/self/fd/%d", s.fd), s.path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return "bind " + s.path + " again inside its overlay", err
		}
	}
	return "", nil
}

// depth is the number of components of an absolute path: layers are
// mounted shallowest first, so $HOME's overlay is below the workspace's
// when the workspace lies in $HOME.
func depth(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}
