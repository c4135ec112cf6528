//go:build unix

package inplace

import (
	"os"
	"syscall"
)

// crashEnv names a step of the in-place cycle at which the process kills
// itself with SIGKILL, for the fault-injection tests: before-journal,
// mid-journal, after-journal, mid-write, during-command, mid-restore.
// Nothing sets it outside tests.
const crashEnv = "SHADOW_TEST_CRASH_AT"

func crashAt(step string) {
	if os.Getenv(crashEnv) == step {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}
