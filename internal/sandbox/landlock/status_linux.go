package landlock

import (
	"errors"
	"os"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// maxABI is the highest ABI go-landlock v0.11 knows (its V11 preset);
// a newer kernel's rights beyond it are not taken.
const maxABI = 11

// Status says which Landlock ABI this kernel offers to this process (0:
// none) and, when none, why and what would give it. It asks the kernel
// (landlock_create_ruleset with LANDLOCK_CREATE_RULESET_VERSION), so a
// seccomp filter that forbids the call counts as no Landlock.
func Status() (abi int, why string) {
	if os.Getenv(OffEnv) == "off" {
		return 0, OffEnv + "=off turned it off"
	}
	v, err := llsys.LandlockGetABIVersion()
	switch {
	case err == nil && v > 0:
		return min(v, maxABI), ""
	case errors.Is(err, unix.ENOSYS):
		return 0, "the kernel has no Landlock (Linux before 5.13, or built without CONFIG_SECURITY_LANDLOCK): a newer kernel, or overlay mode, seals the command"
	case errors.Is(err, unix.EOPNOTSUPP):
		return 0, "Landlock is built into the kernel but not enabled at boot: add landlock to the lsm= kernel parameter (or CONFIG_LSM)"
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return 0, "a seccomp profile forbids the landlock_* system calls (Docker before 23.0, an older containerd or Podman profile): allow landlock_create_ruleset, landlock_add_rule and landlock_restrict_self, or run with a newer runtime's default profile"
	case err != nil:
		return 0, "landlock_create_ruleset: " + err.Error()
	}
	return 0, "the kernel reports no Landlock ABI"
}
