package nsinit

import "golang.org/x/sys/unix"

// Pathname unix sockets are decided when the command connects, not by a
// list taken when it starts: a server the user starts later, or binds
// by a relative path (tmux -S ./sock, which /proc/net/unix lists as
// "./sock"), is reachable through the read-only view of / as any other
// (connect(2) needs write permission on the socket file, which a
// read-only mount does not take away), and a tmux server's run-shell
// then runs outside every namespace. The socket guard (package landlock,
// seccomp user notification) sends the command's connect, sendmsg,
// sendmmsg and addressed sendto calls to the init, which performs each
// itself and allows a pathname socket only when it is the hypothesis's
// own (ownSocket). A socket bound in the host's directories is never
// reachable through an overlay (a connect through overlayfs finds no
// socket at the overlay's inode: ECONNREFUSED), so every socket beneath
// an overlay or a private tmpfs was bound by the hypothesis.

// ownMounts are the mount IDs (statx(2) STATX_MNT_ID) of the mounts that
// are the hypothesis's alone: its overlays and private tmpfs (/tmp,
// /var/tmp, /dev/shm).
var ownMounts = map[uint64]bool{}

// procFresh says /proc shows this PID namespace: the guard reads the
// command's cwd and memory by the pids its notifications name.
var procFresh bool

// noteOwnMount records the mount at p as the hypothesis's own.
func noteOwnMount(p string) {
	var stx unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW|unix.AT_NO_AUTOMOUNT, unix.STATX_MNT_ID, &stx) == nil && stx.Mask&unix.STATX_MNT_ID != 0 {
		ownMounts[stx.Mnt_id] = true
	}
}

// ownSocket says whether the socket file (an O_PATH fd) the command's
// socket sock would reach is the hypothesis's: it lies on one of its own
// mounts, or (a stream or seqpacket socket elsewhere: the host's /tmp
// with --tmp shared) its listener is held by a process of the
// hypothesis's PID namespace (ownListener). A datagram socket elsewhere
// has no listener to ask and is refused.
func ownSocket(sock, file int) bool {
	var stx unix.Statx_t
	if unix.Statx(file, "", unix.AT_EMPTY_PATH, unix.STATX_MNT_ID, &stx) == nil && stx.Mask&unix.STATX_MNT_ID != 0 && ownMounts[stx.Mnt_id] {
		return true
	}
	typ, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil || (typ != unix.SOCK_STREAM && typ != unix.SOCK_SEQPACKET) {
		return false
	}
	var st unix.Stat_t
	if unix.Fstat(file, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return false
	}
	return ownListener(uint64(st.Ino), st.Dev)
}
