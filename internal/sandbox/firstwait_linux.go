package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat's utime and stime:
// 100 on every Linux architecture shadow builds for (proc(5)).
const clockTicks = 100

// treeCPU is the CPU time (user and system) used by shadow's descendants:
// while the baseline runs alone, its sandbox's processes. Each live
// descendant counts its own time and that of the children it has waited
// for (cutime, cstime), and shadow its waited-for children's, so a
// compiler process that came and went between two samples still counts
// (proc(5): a child's times move into its parent's when it is reaped), and
// the sum only grows.
func treeCPU() time.Duration {
	procs, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(procs) == 0 {
		return -1
	}
	parent := map[int]int{}
	ticks := map[int]int64{}
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ... utime(14) stime(15): comm may hold
		// spaces and parentheses, so fields are counted after the last ')'.
		end := bytes.LastIndexByte(b, ')')
		if end < 0 {
			continue
		}
		pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:bytes.IndexByte(b, '(')])))
		if err != nil {
			continue
		}
		f := bytes.Fields(b[end+1:])
		if len(f) < 15 {
			continue
		}
		ppid, _ := strconv.Atoi(string(f[1]))
		var t [4]int64
		for i := range t {
			t[i], _ = strconv.ParseInt(string(f[11+i]), 10, 64)
		}
		parent[pid], ticks[pid] = ppid, t[0]+t[1]+t[2]+t[3]
		if pid == self {
			ticks[pid] = t[2] + t[3] // shadow's own time is not the baseline's
		}
	}
	sum := ticks[self]
	for pid, t := range ticks {
		for p, n := parent[pid], 0; p > 1 && n < 64; p, n = parent[p], n+1 {
			if p == self {
				sum += t
				break
			}
		}
	}
	return time.Duration(sum) * time.Second / clockTicks
}
