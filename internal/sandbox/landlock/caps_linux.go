package landlock

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// dropCaps leaves the calling thread, which forks the sealed command,
// with no capability in any set, as overlay mode's init does for its
// command (overlay/nsinit): Landlock confines what a root command may
// write but not what capabilities do beside it (CAP_SYS_ADMIN's mount,
// CAP_NET_RAW's raw sockets, CAP_SYS_MODULE, CAP_SYS_PTRACE of the
// processes Landlock's scope leaves it, CAP_CHOWN and CAP_FOWNER on files
// outside its Write dirs, which no Landlock right covers). A test run
// needs none of them. Capabilities are per thread (capabilities(7)), so
// the helper's other threads, the socket guard's among them, keep theirs.
//
//   - the bounding set emptied (PR_CAPBSET_DROP, needs CAP_SETPCAP): for
//     uid 0, execve(2) would otherwise fill permitted and effective from
//     it. Without CAP_SETPCAP (shadow not root) there is nothing to drop:
//     no_new_privs already keeps execve from granting file capabilities;
//   - the ambient set cleared, then effective, permitted and inheritable
//     zeroed with capset(2).
//
// As root this makes the command uid 0 without capabilities: it writes
// what root owns beneath its Write dirs (copy mode's copies are root's
// when sealed: see copy.copyOpts.noOwners) and nothing of another owner.
func dropCaps() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Permitted|data[1].Permitted == 0 && data[0].Inheritable|data[1].Inheritable == 0 {
		// Nothing held (shadow runs as a user): the ambient set is a
		// subset of permitted, and no_new_privs keeps it so.
		return nil
	}
	setpcap := data[0].Effective&(1<<unix.CAP_SETPCAP) != 0
	last := lastCap()
	for c := 0; setpcap && c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clear capability sets: %w", err)
	}
	return nil
}

// lastCap is the highest capability this kernel knows
// (/proc/sys/kernel/cap_last_cap), or CAP_LAST_CAP of our headers.
func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 && n < 64 {
			return n
		}
	}
	return unix.CAP_LAST_CAP
}
