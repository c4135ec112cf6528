package overlay

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Each hypothesis's private /tmp, /var/tmp and /dev/shm are tmpfs:
// memory, in no process's RSS, so the OOM killer does not see who holds
// it (oom_badness counts a process's resident pages, not the tmpfs pages
// it wrote). A cap of a share of RAM each let one hypothesis filling its
// /tmp take what shadow and its siblings need, and the OOM killer then
// picked a sibling, the largest process. So the caps of all the
// hypotheses that run at once, three tmpfs each, add up to no more than
// the memory shadow may use: the machine's, or its own cgroup's limit
// where that is lower (a container). With --memory the pages a command
// writes there are charged to its own memory cgroup (memcg charges shmem
// to the cgroup of the task that first touches the page, cgroup v1 and
// v2 alike), so it reaches its own cap and its own OOM first; its tmpfs
// is capped at that too.
func tmpCap(jobs int, memory int64) int64 {
	if jobs < 1 {
		jobs = 1
	}
	c := machineMemory() / int64(jobs) / 3
	if memory > 0 && memory < c {
		c = memory
	}
	return max(c, 16<<20)
}

// machineMemory is the memory shadow may use: physical RAM, or less where
// a cgroup above shadow limits it. Read once per process: every
// hypothesis asks (tmpCap), and the answer is six reads of /proc and
// cgroupfs that a run does not change.
func machineMemory() int64 {
	memOnce.Do(func() { memFound = readMachineMemory() })
	return memFound
}

var (
	memOnce  sync.Once
	memFound int64
)

func readMachineMemory() int64 {
	var si unix.Sysinfo_t
	ram := int64(8 << 30)
	if unix.Sysinfo(&si) == nil && si.Totalram > 0 {
		ram = int64(si.Totalram) * int64(si.Unit)
	}
	cg := ownCgroups()
	if p, ok := cg["memory"]; ok {
		ram = min(ram, cgroupLimit("/sys/fs/cgroup/memory", p, "memory.limit_in_bytes"))
	} else if p, ok := cg[""]; ok {
		ram = min(ram, cgroupLimit("/sys/fs/cgroup", p, "memory.max"))
	}
	return ram
}

// cgroupLimit is the lowest memory limit of cgroup path and its
// ancestors (a v1 hierarchy's file shows its own limit only; a v2 one
// says "max" for none).
func cgroupLimit(root, path, file string) int64 {
	lim := int64(1<<63 - 1)
	for p := filepath.Clean("/" + path); ; p = filepath.Dir(p) {
		if b, err := os.ReadFile(filepath.Join(root, p, file)); err == nil {
			if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 {
				lim = min(lim, n)
			}
		}
		if p == "/" {
			return lim
		}
	}
}
