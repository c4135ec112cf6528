package sandbox

import (
	"path/filepath"
	"strconv"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/refusal"
	"github.com/shadow-dev/shadow/internal/sandbox/landlock"
	"github.com/shadow-dev/shadow/snap"
)

// copyCaches is where older shadows kept copy mode's caches per copy slot
// (GOCACHE, XDG_CACHE_HOME, npm's) across runs, whoever wrote them; each
// job's caches are its own now (copy/caches.go), what is left there is
// hidden from sealed commands and removed by gc.
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
		return &Refusal{Code: refusal.ExitEnv, Msg: "--require-seal: " + string(m) + " mode cannot seal the command here", Reason: why,
			Fix: "run where `shadow probe` finds overlay mode or Landlock, or drop --require-seal (the mode then guards against accidents only)"}
	}
	if m == engine.ModeCopy && abi >= 4 {
		c.Needs.NetIsolated = false
	}
	return nil
}

// LandlockStatus is the probe's landlock field (`shadow probe --json`:
// "landlock": {"abi": N, "why": ...}): the ABI this kernel offers to
// copy and in-place modes' commands, or 0 and why not.
type LandlockStatus struct {
	ABI int    `json:"abi"`
	Why string `json:"why,omitempty"`
}

func landlockStatus() LandlockStatus {
	abi, why := landlock.Status()
	return LandlockStatus{ABI: abi, Why: why}
}

// line is the probe's text line for it.
func (l LandlockStatus) line() string {
	if l.ABI > 0 {
		return "landlock: abi " + strconv.Itoa(l.ABI) + ": copy and in-place modes seal each command (" + landlock.What(l.ABI, false) + ")\n"
	}
	return "landlock: none (" + l.Why + "): copy and in-place modes guard against accidents only\n"
}

// protectionSealed says what copy mode guards against with Landlock.
const protectionSealed = "a hostile command, by Landlock: each hypothesis runs as you in its own copy of the workspace and may write only there, its private TMPDIR and caches; it reads no running sibling's copy nor shadow's state dir, opens no terminal (/dev is granted by node), makes no SysV IPC, message queue or key; it cannot signal or ptrace shadow. Only namespaces close the rest: a PID namespace's reaping of what escapes the helper, a private loopback"

// sealExplain adds the landlock status to the probe's explanation and,
// where it seals copy mode, says so in place of "accidents only".
func sealExplain(e *Explanation, mode engine.Mode) {
	e.Landlock = landlockStatus()
	if mode == engine.ModeCopy && e.Landlock.ABI > 0 {
		e.Protection = protectionSealed
	}
}
