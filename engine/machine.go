package engine

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// The machine's cores and load go into the report (cpus, load) and into
// a timeout's error, so a hypothesis that timed out while more jobs ran
// than there are cores, or on a machine loaded by other work, is told
// apart from one that hung.

// cpus is the number of cores this process may run on (sched_getaffinity
// on Linux, so a container's or taskset's limit counts).
func cpus() int { return runtime.NumCPU() }

// loadAvg is the 1-minute load average (/proc/loadavg, proc(5)): the
// number of tasks running or waiting for a core, averaged; 0 where the
// system does not say.
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0
	}
	return v
}

// contention describes the competition for cores when jobs hypotheses
// ran at once, or "" when there was none to speak of: jobs within the
// cores and the load below them.
func contention(jobs int) string {
	n, load := cpus(), loadAvg()
	if jobs <= n && load < float64(n) {
		return ""
	}
	return fmt.Sprintf("%d at once on %d cores, load %.1f: the machine was busy, so this may be contention rather than a hang", jobs, n, load)
}

// effectiveJobs is how many hypotheses ran at once at most.
func effectiveJobs(cfg *Config) int {
	j := min(cfg.Jobs, len(cfg.Hyps))
	if j <= 0 || !cfg.Sandbox.Parallel() {
		j = 1
	}
	return j
}
