package snap

import (
	"os"
	"strconv"
	"strings"
)

// bootID is the kernel's id of this boot ("" where there is none): a PID
// recorded before a reboot names nothing now.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// pidStart is field 22 of /proc/PID/stat, the process's start time in
// clock ticks after boot; 0 when unknown. With the PID it names one process
// for the life of the boot, even after the PID is reused.
func pidStart(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); field 22 is f[19].
	if len(f) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}

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
