//go:build unix

package checkout

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// lockApply takes an exclusive flock(2) on the checkout directory itself
// (a directory can be flocked on Linux and the BSDs; nothing is created in
// the checkout), held until the returned func: the TUI's a, shadow apply,
// MCP shadow_apply and --apply of other shadow processes wait for each
// other rather than interleave their writes.
func lockApply(workspace string) (func(), error) {
	d, err := os.Open(workspace)
	if err != nil {
		return nil, fmt.Errorf("apply: open the checkout %s: %w", workspace, err)
	}
	for {
		err = unix.Flock(int(d.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("apply: lock the checkout %s: %w", workspace, err)
	}
	return func() { unix.Flock(int(d.Fd()), unix.LOCK_UN); d.Close() }, nil
}
