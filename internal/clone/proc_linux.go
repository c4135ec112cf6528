package clone

import (
	"os"
	"strconv"
	"strings"
)

// procStart is a process's start time in clock ticks since boot, field 22
// of /proc/PID/stat (proc(5)); the comm field may hold spaces and
// parentheses, so fields are counted from the last ')'.
func procStart(pid int) (uint64, bool) {
	f, ok := statFields(pid)
	if !ok || len(f) < 20 {
		return 0, false
	}
	st, err := strconv.ParseUint(f[19], 10, 64)
	return st, err == nil
}

// statFields returns /proc/PID/stat from field 3 (state) on.
func statFields(pid int) ([]string, bool) {
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

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
