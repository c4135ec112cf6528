package sandbox

import (
	"fmt"
	"io"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/inplace"
	"github.com/shadow-dev/shadow/internal/refusal"
	"github.com/shadow-dev/shadow/internal/sandbox/copy"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

// Auto is --mode auto: the best mode the machine gives (decideAuto).
const Auto = "auto"

// Config is what Open builds a sandbox from.
type Config struct {
	Store     snap.Store
	Workspace string
	// Mode is --mode: Auto (or "") or one of engine's modes but remote.
	Mode string
	// Version keys the probe cache (shadow's version; a node passes its
	// binary's path).
	Version string
	// Needs are refused when the chosen mode cannot honour them
	// (engine.CapabilitiesOf); a node leaves them empty and refuses per job.
	Needs engine.Needs
	// CopySkip are --copy-skip globs (copy mode).
	CopySkip []string
	// Writable are --writable paths (overlay mode overlays each per
	// hypothesis; the other modes write everywhere anyway).
	Writable []string
	// UpperSize, with Needs.UpperRAM, caps each overlay upper dir's tmpfs.
	UpperSize int64
	// HostPorts (--host-port) are host localhost TCP ports overlay mode's
	// private network forwards; Memory (--memory) caps each hypothesis's
	// memory (overlay mode with a memory cgroup, else refused); Jobs is
	// how many run at once (the RLIMIT_NPROC share).
	HostPorts []int
	Memory    int64
	Jobs      int
	// Hide are directories no command may see beyond shadow's own
	// (ShadowDirs): a node's own binaries.
	Hide []string
	// Lock: the sandbox takes the workspace lock (inplace.Lock) shared for
	// its whole run, so no in-place run of another shadow writes the
	// checkout meanwhile. A node locks its mirror itself.
	Lock bool
	// Notices receives the one-line auto fallback notice (nil: none).
	Notices io.Writer
	// RequireSeal (--require-seal): copy and in-place modes refuse to run
	// where Landlock cannot seal the command (seal.go).
	RequireSeal bool
	// Nodes, when set, make it a remote run (--remote, docs/remote.md):
	// Open builds the remote sandbox over them (remote.go), and the rest of
	// this configuration is the sandbox of the node "local", when one is
	// named. RemoteDir is where the mirror lives on every node
	// (--remote-dir; "" is the workspace's own path).
	Nodes     []engine.RemoteNode
	RemoteDir string
}

// Refusal is a mode the machine cannot give, or a need the mode cannot
// honour: nothing ran. It is shadow's one refusal type (internal/refusal,
// run.Error), always with exit code 3 (refusal.ExitEnv): Msg names what
// was refused; Reason and Fix are the probe's, when it is the probe's
// verdict.
type Refusal = refusal.Error

// refuse is a Refusal with exit code 3.
func refuse(msg, reason, fix string) *Refusal {
	return &Refusal{Code: refusal.ExitEnv, Msg: msg, Reason: reason, Fix: fix}
}

// Open is the one place a sandbox is chosen and built, from --mode and the
// probe's verdict, for a local run and for a remote node alike:
//
//   - inplace: the journaled in-place sandbox, no probe needed;
//   - overlay: overlay shadows, or a Refusal with the probe's reason and fix;
//   - copy: a copy of the workspace per hypothesis, or a Refusal;
//   - auto: overlay shadows when the probe says they work, else copy mode,
//     else (no copy can be made) in place, with a one-line notice.
//
// Then it refuses what the chosen sandbox cannot honour (Config.Needs):
// isolation asked for and not available is refused, never silently
// dropped (in-place runs share the host's network and /tmp).
//
// With c.Nodes it is the remote sandbox over those nodes (openRemote),
// whose node "local" gets this machine's sandbox as above.
func Open(c Config) (engine.Sandbox, error) {
	if len(c.Nodes) > 0 {
		return openRemote(c)
	}
	return openLocal(c)
}

// openLocal is Open's sandbox on this machine.
func openLocal(c Config) (engine.Sandbox, error) {
	notices := c.Notices
	if notices == nil {
		notices = io.Discard
	}
	stateDir := c.Store.WorkspaceDir(c.Workspace)
	hide := append(ShadowDirs(c.Store), c.Hide...)
	newCopy := func(base string) engine.Sandbox {
		return copy.New(base, copy.Options{Skip: c.CopySkip, Exclude: hide,
			RequireSeal: c.RequireSeal, Writable: c.Writable, HostPorts: c.HostPorts, CacheDir: copyCaches(c.Store)})
	}
	var sb engine.Sandbox
	switch c.Mode {
	case string(engine.ModeInplace):
		sb = inplace.New(stateDir, notices).Seal(inplace.SealOptions{Require: c.RequireSeal, Writable: c.Writable, Hidden: hide})
	case string(engine.ModeCopy):
		base, err := copyBase(c.Store, c.Workspace)
		if err != nil {
			return nil, refuse("copy mode is unavailable", err.Error(), "")
		}
		sb = newCopy(base)
	case string(engine.ModeOverlay), Auto, "":
		d := decideAuto(probe(c.Store, c.Workspace, c.Version), c.Store, c.Workspace)
		v := d.verdict
		switch {
		case d.mode == engine.ModeOverlay:
			// v.Upper: the probe moves upper dirs to $TMPDIR when the
			// state dir's filesystem cannot hold them.
			ov := overlay.New(v.Upper, v.Options).Mask(hide...).Writable(c.Writable...)
			if c.Needs.UpperRAM {
				ov.RAM(c.UpperSize)
			}
			if err := ov.HostPorts(c.HostPorts...).Limit(overlay.Limits{MemoryBytes: c.Memory, Jobs: c.Jobs}); err != nil {
				return nil, refuse(err.Error(), "", "")
			}
			sb = ov
		case c.Mode == string(engine.ModeOverlay):
			return nil, refuse("overlay mode is unavailable", v.Reason, v.Fix)
		case d.mode == engine.ModeCopy:
			fmt.Fprintf(notices, "shadow: overlay unavailable (%s), running each hypothesis in its own copy of the workspace (copy mode); `shadow probe` says why and how to fix it\n", shortReason(v))
			sb = newCopy(d.copyBase)
		default:
			fmt.Fprintf(notices, "shadow: overlay unavailable (%s) and no copy can be made (%v), running hypotheses one at a time in the checkout, which is restored after each; `shadow probe` says why and how to fix it\n", shortReason(v), d.copyErr)
			sb = inplace.New(stateDir, notices).Seal(inplace.SealOptions{Require: c.RequireSeal, Writable: c.Writable, Hidden: hide})
		}
	default:
		return nil, refuse(fmt.Sprintf("--mode %s: want auto, overlay, copy or inplace", c.Mode), "", "")
	}
	if c.Memory > 0 && sb.Mode() != engine.ModeOverlay {
		return nil, refuse(fmt.Sprintf("--memory needs overlay mode, and this run would be %s (see shadow probe)", sb.Mode()), "", "")
	}
	if err := checkSeal(sb, &c); err != nil {
		return nil, err
	}
	if flag := engine.CapabilitiesOf(sb.Mode()).Refuses(c.Needs); flag != "" {
		return nil, refuse(fmt.Sprintf("%s needs overlay mode, and this run would be %s (see shadow probe)", flag, sb.Mode()), "", "")
	}
	if c.Lock && sb.Mode() != engine.ModeInplace {
		// In-place mode takes the lock itself, exclusively, per run.
		sb = Locked(sb, LockPath(c.Store, c.Workspace), notices)
	}
	return sb, nil
}

// shortReason is the failed step and its errno, for the one-line notice.
func shortReason(v overlay.Verdict) string {
	switch {
	case v.Stage != "" && v.Errno != "":
		return v.Stage + ": " + v.Errno
	case v.Stage != "":
		return v.Stage
	}
	return v.Reason
}
