package snap

import (
	"github.com/shadow-dev/shadow/internal/procfs"
)

// bootID is the kernel's id of this boot ("" where there is none): a PID
// recorded before a reboot names nothing now.
func bootID() string { return procfs.BootID() }

// pidStart is field 22 of /proc/PID/stat, the process's start time in
// clock ticks after boot; 0 when unknown. With the PID it names one process
// for the life of the boot, even after the PID is reused.
func pidStart(pid int) uint64 { return procfs.StartTime(pid) }

// recorderAlive reports whether the process that wrote meta is still
// running: same boot, the PID exists, and (where known) it started at the
// recorded time.
func recorderAlive(m *Meta) bool {
	if m == nil || m.PID <= 0 {
		return false
	}
	if m.Boot != "" {
		if b := bootID(); b != "" && b != m.Boot {
			return false
		}
	}
	if !pidExists(m.PID) {
		return false
	}
	if m.PIDStart != 0 {
		if now := pidStart(m.PID); now != 0 && now != m.PIDStart {
			return false
		}
	}
	return true
}
