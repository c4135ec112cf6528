//go:build unix

package inplace

import (
	"os"
	"strings"
	"syscall"
	"time"
)

// crashEnv names a step of the in-place cycle at which the process kills
// itself with SIGKILL, for the fault-injection tests: before-journal,
// mid-journal, after-journal, mid-write, helper-started, during-command,
// mid-restore. STEP@DURATION waits that long at the step first (what
// runs meanwhile, runs). Nothing sets it outside tests.
const crashEnv = "SHADOW_TEST_CRASH_AT"

func crashAt(step string) {
	at, wait, _ := strings.Cut(os.Getenv(crashEnv), "@")
	if at != step {
		return
	}
	if d, err := time.ParseDuration(wait); err == nil {
		time.Sleep(d)
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way
}
