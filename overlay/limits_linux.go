package overlay

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/engine"
)

// Per-hypothesis resource limits: one hypothesis must not keep a sibling
// from starting, get a sibling or shadow OOM-killed, or crash shadow (the
// Go runtime aborts when pthread_create fails: the defence is that no
// hypothesis can use up the user's process count, so shadow never gets
// EAGAIN).
//
//   - oom_score_adj (every mode with an init): raised for the hypothesis's
//     whole tree, so the OOM killer picks it before shadow (proc(5)).
//   - pids: a pids cgroup where one is writable (v2 delegated, or v1 as
//     root), else RLIMIT_NPROC inside the hypothesis's user namespace,
//     which Linux 5.14+ counts per user namespace (nsinit/limits_linux.go).
//   - memory (--memory): a memory cgroup only; without one the option is
//     refused, never silently dropped.
//   - peak memory: the memory cgroup's peak where there is one, else the
//     largest single process's peak RSS (getrusage(2) RUSAGE_CHILDREN of
//     the init, which reaps the whole tree).

// Limits are what a run asks for each hypothesis; zero fields take the
// defaults.
type Limits struct {
	MemoryBytes int64 // --memory; 0: no cap
	Pids        int64 // processes and threads at once; 0: DefaultPids
	// Jobs is how many hypotheses run at once (0: the CPU count): with
	// RLIMIT_NPROC each gets a share of the user's own limit.
	Jobs int
}

// DefaultPids is the default process/thread cap per hypothesis: far above
// what a test suite needs (a Go test binary with -p 16 runs a few hundred
// threads), far below a machine's pid_max.
const DefaultPids = 4096

// OOMScoreAdj is what every hypothesis's processes run with: above any
// process left at the default 0 (shadow, the user's shell and editor) for
// the same memory, so a hypothesis that fills memory is killed first.
const OOMScoreAdj = 500

// Limit sets the per-hypothesis limits. It refuses a memory cap this
// machine cannot enforce (no writable memory cgroup): isolation asked for
// and not available is refused, never dropped.
func (s *Sandbox) Limit(l Limits) error {
	if l.MemoryBytes > 0 && !ProbeLimits().Memory {
		return fmt.Errorf("--memory needs a memory cgroup shadow can write, and this machine has none for uid %d (%s); run as root, or under a systemd user session with cgroup v2 delegation (systemd-run --user --scope -p Delegate=yes shadow ...), or drop --memory", os.Geteuid(), ProbeLimits().Why)
	}
	s.limits = l
	return nil
}

// LimitMechanisms is what the probe found (shadow probe says it).
type LimitMechanisms struct {
	Via    string `json:"via"`    // "cgroup v2", "cgroup v1", "rlimit" or "" (nothing)
	Pids   bool   `json:"pids"`   // a per-hypothesis process cap is enforced
	Memory bool   `json:"memory"` // --memory can be enforced
	Why    string `json:"why"`    // what was found, one line
	v2     string // the delegated cgroup v2 directory we create children in
	v1pids string // the v1 pids and memory hierarchies' directories of ours
	v1mem  string
}

var (
	limitsOnce  sync.Once
	limitsFound LimitMechanisms
)

// ProbeLimits finds, once per process, how this machine lets shadow limit
// a hypothesis.
func ProbeLimits() LimitMechanisms {
	limitsOnce.Do(func() { limitsFound = probeLimits() })
	return limitsFound
}

func probeLimits() LimitMechanisms {
	var m LimitMechanisms
	own := ownCgroups()
	// cgroup v2: our own cgroup must be writable and already hand pids
	// and memory to its children (cgroup.subtree_control); a process
	// cannot enable that itself while it lives in the cgroup (the
	// no-internal-process rule, cgroups(7)).
	if p, ok := own[""]; ok {
		for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
			dir := filepath.Join(root, p)
			sub, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
			if err != nil || unix.Access(dir, unix.W_OK) != nil {
				continue
			}
			ctl := strings.Fields(string(sub))
			if has(ctl, "pids") {
				m.Via, m.Pids, m.Memory, m.v2 = "cgroup v2", true, has(ctl, "memory"), dir
				m.Why = "cgroup v2 delegated at " + dir
				return m
			}
		}
	}
	// cgroup v1, as root (or wherever the hierarchies are writable).
	if p, ok := own["pids"]; ok {
		dir := filepath.Join("/sys/fs/cgroup/pids", p)
		if unix.Access(dir, unix.W_OK) == nil {
			m.Via, m.Pids, m.v1pids = "cgroup v1", true, dir
			m.Why = "cgroup v1 pids at " + dir
		}
	}
	if p, ok := own["memory"]; ok {
		dir := filepath.Join("/sys/fs/cgroup/memory", p)
		if unix.Access(dir, unix.W_OK) == nil {
			m.Memory, m.v1mem = true, dir
			if m.Via == "" {
				m.Via = "cgroup v1"
			}
			m.Why += "; cgroup v1 memory at " + dir
		}
	}
	if m.Pids {
		return m
	}
	if os.Geteuid() != 0 {
		// The init's RLIMIT_NPROC inside the user namespace (Linux 5.14+).
		m.Pids = rlimitPerUserNS()
		if m.Pids {
			m.Via = "rlimit"
		}
		m.Why = strings.TrimPrefix(m.Why+"; no writable cgroup: RLIMIT_NPROC in the user namespace", "; ")
		if !m.Pids {
			m.Why += " needs Linux 5.14 (per user namespace accounting); processes are not capped"
		}
		return m
	}
	m.Why = strings.TrimPrefix(m.Why+"; root without a writable pids cgroup: processes are not capped (RLIMIT_NPROC does not bind uid 0)", "; ")
	return m
}

// rlimitPerUserNS reports whether the kernel counts RLIMIT_NPROC per user
// namespace (Linux 5.14, ucounts).
func rlimitPerUserNS() bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	var maj, min int
	fmt.Sscanf(unix.ByteSliceToString(u.Release[:]), "%d.%d", &maj, &min)
	return maj > 5 || maj == 5 && min >= 14
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ownCgroups reads /proc/self/cgroup: controller list -> path ("" is the
// v2 hierarchy).
func ownCgroups() map[string]string {
	out := map[string]string{}
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			out[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out
}

// hypLimits is one job's cgroups and what was enforced.
type hypLimits struct {
	dirs    []string // cgroup dirs made for the job, removed by release
	peak    string   // file holding the peak memory in bytes
	enf     engine.HypLimits
	nproc   int64 // RLIMIT_NPROC for the init (rlimit mechanism)
	oomAdj  int
	warning string
}

// limitsFor prepares a job's limits: its cgroups (empty yet; attach moves
// the init in before it starts anything) or the rlimit the init sets.
// jobs is how many hypotheses may run at once.
func (s *Sandbox) limitsFor(name string, jobs int) (*hypLimits, error) {
	m := ProbeLimits()
	sweepCgroups(m)
	pids := s.limits.Pids
	if pids <= 0 {
		pids = DefaultPids
	}
	h := &hypLimits{oomAdj: OOMScoreAdj}
	h.enf.OOMScoreAdj = OOMScoreAdj
	switch {
	case m.v2 != "":
		dir := filepath.Join(m.v2, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create the hypothesis's cgroup %s: %w", dir, err)
		}
		h.dirs = append(h.dirs, dir)
		if err := writeCg(dir, "pids.max", pids); err != nil {
			h.release()
			return nil, err
		}
		h.enf.Pids = pids
		if m.Memory {
			if s.limits.MemoryBytes > 0 {
				if err := writeCg(dir, "memory.max", s.limits.MemoryBytes); err != nil {
					h.release()
					return nil, err
				}
				_ = writeCg(dir, "memory.swap.max", 0)
				h.enf.MemoryBytes = s.limits.MemoryBytes
			}
			h.peak = filepath.Join(dir, "memory.peak") // Linux 5.19
		}
		h.enf.Via = "cgroup v2"
	case m.v1pids != "" || m.v1mem != "":
		h.enf.Via = "cgroup v1"
		if m.v1pids != "" {
			dir := filepath.Join(m.v1pids, name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				return nil, fmt.Errorf("create the hypothesis's pids cgroup %s: %w", dir, err)
			}
			h.dirs = append(h.dirs, dir)
			if err := writeCg(dir, "pids.max", pids); err != nil {
				h.release()
				return nil, err
			}
			h.enf.Pids = pids
		}
		if m.v1mem != "" {
			dir := filepath.Join(m.v1mem, name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				h.release()
				return nil, fmt.Errorf("create the hypothesis's memory cgroup %s: %w", dir, err)
			}
			h.dirs = append(h.dirs, dir)
			if s.limits.MemoryBytes > 0 {
				if err := writeCg(dir, "memory.limit_in_bytes", s.limits.MemoryBytes); err != nil {
					h.release()
					return nil, err
				}
				// Without swap accounting the file is absent: nothing to cap.
				_ = writeCg(dir, "memory.memsw.limit_in_bytes", s.limits.MemoryBytes)
				h.enf.MemoryBytes = s.limits.MemoryBytes
			}
			h.peak = filepath.Join(dir, "memory.max_usage_in_bytes")
		}
		if h.enf.Pids == 0 && os.Geteuid() != 0 && m.Pids {
			h.nproc, h.enf.Pids = nprocShare(pids, jobs), nprocShare(pids, jobs)
		}
	case m.Via == "rlimit":
		h.nproc = nprocShare(pids, jobs)
		h.enf.Pids, h.enf.Via = h.nproc, "rlimit"
	}
	return h, nil
}

// nprocShare caps pids by a share of the user's own RLIMIT_NPROC: with
// jobs hypotheses at their cap at once, shadow must keep room for its own
// threads (the Go runtime aborts when pthread_create fails), so each gets
// at most the limit / (jobs+1).
func nprocShare(pids int64, jobs int) int64 {
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NPROC, &rl) != nil || rl.Cur == unix.RLIM_INFINITY {
		return pids
	}
	if jobs < 1 {
		jobs = 1
	}
	if share := int64(rl.Cur) / int64(jobs+1); share < pids {
		pids = share
	}
	if pids < 16 {
		pids = 16
	}
	return pids
}

func writeCg(dir, file string, v int64) error {
	p := filepath.Join(dir, file)
	if err := os.WriteFile(p, []byte(strconv.FormatInt(v, 10)), 0); err != nil {
		return fmt.Errorf("set %s to %d: %w", p, v, err)
	}
	return nil
}

// attach moves pid (the init, before it has started anything) into the
// job's cgroups.
func (h *hypLimits) attach(pid int) error {
	if h == nil {
		return nil
	}
	for _, d := range h.dirs {
		p := filepath.Join(d, "cgroup.procs")
		if err := os.WriteFile(p, []byte(strconv.Itoa(pid)), 0); err != nil {
			return fmt.Errorf("move the sandbox init into %s: %w", p, err)
		}
	}
	return nil
}

// result is what the report says: the peak (the cgroup's, else maxRSS,
// the largest process's, in bytes; 0 for unknown) and the limits.
func (h *hypLimits) result(maxRSS int64) (*int64, *engine.HypLimits) {
	if h == nil {
		return nil, nil
	}
	var peak *int64
	if h.peak != "" {
		if b, err := os.ReadFile(h.peak); err == nil {
			if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 {
				peak = &v
			}
		}
	}
	if peak == nil && maxRSS > 0 {
		peak = &maxRSS
	}
	enf := h.enf
	return peak, &enf
}

// release removes the job's cgroups. Every process in them is dead or
// dying (the PID namespace's init exited), but the kernel may still be
// tearing them down: rmdir fails with EBUSY until it has, which on a
// loaded machine took over half a second. The job waits up to 2s, then
// leaves the rest to a goroutine (a long-lived MCP server's); what a
// shadow that exited or was killed left behind, sweepCgroups removes.
func (h *hypLimits) release() {
	if h == nil || len(h.dirs) == 0 {
		return
	}
	var left []string
	for _, d := range h.dirs {
		if !rmdirRetry(d, 2*time.Second) {
			left = append(left, d)
		}
	}
	h.dirs = nil
	if len(left) > 0 {
		go func() {
			for _, d := range left {
				rmdirRetry(d, 30*time.Second)
			}
		}()
	}
}

// rmdirRetry removes the cgroup d, retrying while it is busy; it reports
// whether d is gone.
func rmdirRetry(d string, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for {
		err := unix.Rmdir(d)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cgroupPrefix names the cgroups shadow makes (limitsFor).
const cgroupPrefix = "shadow-"

var sweepOnce sync.Once

// sweepCgroups removes, once per process, the empty cgroups named
// shadow-* under the parents limitsFor uses that are older than a minute:
// those of a shadow that was killed before its release. A younger one
// may be another shadow's, made and not yet joined by its init.
func sweepCgroups(m LimitMechanisms) {
	sweepOnce.Do(func() {
		for _, parent := range []string{m.v2, m.v1pids, m.v1mem} {
			if parent == "" {
				continue
			}
			ents, err := os.ReadDir(parent)
			if err != nil {
				continue
			}
			for _, e := range ents {
				if !e.IsDir() || !strings.HasPrefix(e.Name(), cgroupPrefix) {
					continue
				}
				d := filepath.Join(parent, e.Name())
				fi, err := os.Stat(d)
				if err != nil || time.Since(fi.ModTime()) < time.Minute {
					continue
				}
				if b, err := os.ReadFile(filepath.Join(d, "cgroup.procs")); err == nil && len(strings.TrimSpace(string(b))) == 0 {
					_ = unix.Rmdir(d)
				}
			}
		}
	})
}
