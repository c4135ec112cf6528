package nsinit

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// initOOM is the init's oom_score_adj before applyLimits raised it, for
// restoreInitOOM; "" when it was not raised.
var initOOM string

// restoreInitOOM puts the init's own oom_score_adj back once the command
// has inherited the raised one. Lowering it back is allowed without
// privilege down to oom_score_adj_min, which an unprivileged write leaves
// where it was (proc(5)).
//
// Only root can: the init of a user namespace would have to be dumpable
// for the write (writeOwnOOM) while the command runs, and the command (the
// same uid) could then ptrace it. There the init keeps the raised value;
// --memory, whose cap-wide OOM would otherwise pick the init as readily as
// the command, needs a memory cgroup, which root has and a user seldom
// does.
func restoreInitOOM() {
	if initOOM != "" && os.Geteuid() == 0 {
		_ = os.WriteFile("/proc/self/oom_score_adj", []byte(initOOM), 0)
	}
}

// writeOwnOOM writes the init's oom_score_adj. The init is not dumpable
// (init_linux.go), so in a user namespace its /proc files belong to the
// host's root, which the namespace does not map, and the write fails with
// EACCES (proc(5), "PR_SET_DUMPABLE"): it is dumpable for the one write.
// That is safe only while the init has started nothing: applyLimits runs
// before the command exists.
func writeOwnOOM(v string) error {
	err := os.WriteFile("/proc/self/oom_score_adj", []byte(v), 0)
	if err == nil || os.Geteuid() == 0 {
		return err
	}
	if unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0) != nil {
		return err
	}
	err = os.WriteFile("/proc/self/oom_score_adj", []byte(v), 0)
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	return err
}

// applyLimits sets the init's own oom_score_adj and RLIMIT_NPROC.
func applyLimits(l LimitConfig) (string, error) {
	if l.OOMScoreAdj != 0 {
		if b, err := os.ReadFile("/proc/self/oom_score_adj"); err == nil {
			initOOM = strings.TrimSpace(string(b))
		}
		if err := writeOwnOOM(strconv.Itoa(l.OOMScoreAdj)); err != nil {
			return fmt.Sprintf("set oom_score_adj to %d", l.OOMScoreAdj), err
		}
	}
	if l.NProc > 0 {
		rl := unix.Rlimit{Cur: uint64(l.NProc), Max: uint64(l.NProc)}
		if err := unix.Setrlimit(unix.RLIMIT_NPROC, &rl); err != nil {
			return fmt.Sprintf("set RLIMIT_NPROC to %d", l.NProc), err
		}
	}
	return "", nil
}

// childrenMaxRSS is the largest peak RSS, in KiB, of the processes this
// one reaped (getrusage(2): for RUSAGE_CHILDREN, ru_maxrss is the largest
// child's, including the descendants each waited for).
func childrenMaxRSS() int64 {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return ru.Maxrss
}
