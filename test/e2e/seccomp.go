//go:build linux

package e2e

import (
	"fmt"
	"os"
	"runtime"

	"github.com/shadow-dev/shadow/internal/sandbox/copy/dockerseccomp"
)

// Copy mode end to end, through the binary, where namespaces are really
// forbidden: inside bubblewrap with --disable-userns (the jail tool; a
// nested user namespace fails with ENOSPC) and under a seccomp filter with
// Docker's namespace rules (EPERM, "Seccomp: 2"), as an unprivileged user.

// SeccompE2EEnv makes the test binary, acting as shadow, put itself under
// Docker's namespace rules before it does anything else.
const SeccompE2EEnv = "SHADOW_E2E_SECCOMP"

// SeccompNoLandlockEnv adds the landlock_* system calls to what the filter
// refuses (EPERM).
const SeccompNoLandlockEnv = "SHADOW_E2E_SECCOMP_NO_LANDLOCK"

// maybeSeccomp is called first in Main: a test binary started with
// SHADOW_E2E_SECCOMP=1 installs the filter, then runs as shadow.
func maybeSeccomp() {
	if os.Getenv(SeccompE2EEnv) != "1" {
		return
	}
	os.Unsetenv(SeccompE2EEnv)
	runtime.LockOSThread()
	install := dockerseccomp.Install
	if os.Getenv(SeccompNoLandlockEnv) == "1" {
		// A runtime whose profile predates Landlock (Docker before 23.0).
		install = dockerseccomp.InstallNoLandlock
	}
	if err := install(); err != nil {
		fmt.Fprintln(os.Stderr, "seccomp:", err)
		os.Exit(125)
	}
}
