package sandbox

import (
	"path/filepath"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/landlock"
	"github.com/shadow-dev/shadow/snap"
)

// copyCaches holds copy mode's private caches per copy slot (GOCACHE,
// XDG_CACHE_HOME, npm's), written by sealed commands instead of $HOME's
// and kept across runs so a slot's Go build cache stays warm.
func copyCaches(store snap.Store) string { return filepath.Join(store.Root, "slot-caches") }

// checkSeal refuses --require-seal where the chosen mode has no
// namespace and Landlock cannot seal its commands (exit 3), and lets copy
// mode honour --net isolated where Landlock's TCP rules (ABI 4) can:
// there no TCP bind or connect but to --host-port ports, since Landlock
// rules name ports, not addresses (no private loopback without a
// network namespace).
func checkSeal(sb engine.Sandbox, c *Config) error {
	m := sb.Mode()
	if m != engine.ModeCopy && m != engine.ModeInplace {
		return nil
	}
	abi, why := landlock.Status()
	if c.RequireSeal && abi == 0 {
		return &Refusal{Msg: "--require-seal: " + string(m) + " mode cannot seal the command here", Reason: why,
			Fix: "run where `shadow probe` finds overlay mode or Landlock, or drop --require-seal (the mode then guards against accidents only)"}
	}
	if m == engine.ModeCopy && abi >= 4 {
		c.Needs.NetIsolated = false
	}
	return nil
}
