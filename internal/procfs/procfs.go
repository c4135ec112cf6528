// Package procfs reads what shadow needs of /proc to name one process
// across time (proc(5)): the boot id, and a process's group and start
// time from /proc/PID/stat. A PID alone is reused; (boot, PID, start time)
// names one process for good. Where there is no /proc (macOS), every
// answer is "unknown".
package procfs

import (
	"os"
	"strconv"
	"strings"
)

// BootID is the kernel's id of this boot
// (/proc/sys/kernel/random/boot_id), "" where there is none: a PID
// recorded before a reboot names nothing now.
func BootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Stat is what shadow reads of /proc/PID/stat.
type Stat struct {
	PGRP  int    // field 5: the process group
	Start uint64 // field 22: start time in clock ticks after boot
}

// ReadStat reads pid's /proc/PID/stat; ok is false when the process is
// gone or there is no /proc.
func ReadStat(pid int) (st Stat, ok bool) {
	f, ok := StatFields(pid)
	if !ok || len(f) < 20 {
		return Stat{}, false
	}
	// f[0] is field 3 (state): field 5 is f[2], field 22 f[19].
	st.PGRP, _ = strconv.Atoi(f[2])
	st.Start, _ = strconv.ParseUint(f[19], 10, 64)
	return st, true
}

// StartTime is pid's start time in clock ticks after boot, 0 when unknown.
func StartTime(pid int) uint64 {
	st, _ := ReadStat(pid)
	return st.Start
}

// StatFields returns /proc/PID/stat's fields from field 3 (state) on. The
// command name (field 2) is in parentheses and may itself hold spaces and
// parentheses, so the fields are counted from the last ')'.
func StatFields(pid int) ([]string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(s[i+1:]), true
}
