package clone

import (
	"github.com/shadow-dev/shadow/internal/procfs"
)

// procStart is a process's start time in clock ticks since boot, field 22
// of /proc/PID/stat (proc(5)); the comm field may hold spaces and
// parentheses, so fields are counted from the last ')'.
func procStart(pid int) (uint64, bool) {
	st, ok := procfs.ReadStat(pid)
	return st.Start, ok
}

// statFields returns /proc/PID/stat from field 3 (state) on.
func statFields(pid int) ([]string, bool) { return procfs.StatFields(pid) }

func bootID() string { return procfs.BootID() }
