package nsinit

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// dropPrivileges leaves this thread, which forks the command, with no
// capability in any set and no way to gain one (runc's init does the
// same before its execve):
//
//   - the bounding set emptied (PR_CAPBSET_DROP, needs CAP_SETPCAP): for
//     uid 0 execve(2) would otherwise fill permitted and effective from it
//     ("Capabilities and execution of programs by root", capabilities(7));
//   - the ambient set cleared, then effective, permitted and inheritable
//     zeroed with capset(2): for a non-root uid execve then computes empty
//     sets, and a file with inheritable file capabilities gains nothing;
//   - no_new_privs (PR_SET_NO_NEW_PRIVS): setuid bits and file
//     capabilities are ignored by every later execve.
func dropPrivileges() error {
	last := lastCap()
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
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
