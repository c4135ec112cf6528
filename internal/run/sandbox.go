package run

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/inplace"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

// newSandbox is the one place a run's sandbox is chosen and built, from
// --mode and the probe's verdict:
//
//   - inplace: the journaled in-place sandbox, no probe needed;
//   - overlay: overlay shadows, or an ExitEnv refusal with the probe's
//     reason and fix;
//   - copy: a copy of the workspace per hypothesis (internal/sandbox/copy);
//   - auto: overlay shadows when the probe says they work, else copy mode,
//     else (no copy can be made) in place, with a one-line notice.
//
// Then it refuses what the chosen sandbox cannot honour: isolation asked
// for and not available is refused, never silently dropped (in-place runs
// share the host's network and /tmp).
func newSandbox(o *Options, net Net, tmp Tmp, store snap.Store, ws string) (engine.Sandbox, error) {
	stateDir := store.WorkspaceDir(ws)
	var sb engine.Sandbox
	switch o.Mode {
	case ModeInplace:
		sb = inplace.New(stateDir, o.notices())
	case ModeCopy:
		c, err := newCopy(o, store, ws)
		if err != nil {
			return nil, &Error{Code: ExitEnv, Msg: "copy mode is unavailable", Reason: err.Error()}
		}
		sb = c
	default:
		v := overlay.CachedProbe(SandboxBase(store, ws), store.ProbeCache(), o.Version)
		switch {
		case v.Mode == "overlay":
			// v.Upper: the probe moves upper dirs to $TMPDIR when the
			// state dir's filesystem cannot hold them.
			ov := overlay.New(v.Upper, v.Options).Mask(ShadowDirs(store)...)
			if o.Upper == UpperRAM {
				ov.RAM(o.UpperSize)
			}
			sb = &sharedOverlay{Sandbox: ov, lock: filepath.Join(stateDir, inplace.LockName), notices: o.notices()}
		case o.Mode == ModeOverlay:
			return nil, &Error{Code: ExitEnv, Msg: "overlay mode is unavailable", Reason: v.Reason, Fix: v.Fix}
		default:
			c, err := newCopy(o, store, ws)
			if err == nil {
				fmt.Fprintf(o.notices(), "shadow: overlay unavailable (%s), running each hypothesis in its own copy of the workspace (copy mode); `shadow probe` says why and how to fix it\n", shortReason(v))
				sb = c
			} else {
				fmt.Fprintf(o.notices(), "shadow: overlay unavailable (%s) and no copy can be made (%v), running hypotheses one at a time in the checkout, which is restored after each; `shadow probe` says why and how to fix it\n", shortReason(v), err)
				sb = inplace.New(stateDir, o.notices())
			}
		}
	}
	if sb.Mode() != "overlay" {
		// Copy mode gives each hypothesis a TMPDIR of its own, layers the
		// frozen sources over its copy and can keep what the command wrote.
		copyMode := sb.Mode() == "copy"
		for _, need := range []struct {
			on   bool
			flag string
		}{{net == NetIsolated, "--net isolated"}, {tmp == TmpPrivate && !copyMode, "--tmp private"}, {o.Freeze && !copyMode, "--freeze"}, {o.Keep && !copyMode, "--keep"}, {o.Upper == UpperRAM, "--upper ram"}} {
			if need.on {
				return nil, Env("%s needs overlay mode, and this run would be %s (see shadow probe)", need.flag, sb.Mode())
			}
		}
	}
	return sb, nil
}

// checkHyps lets the sandbox refuse, before anything runs, hypotheses it
// cannot run safely (in-place mode: a directory delete with no place on
// its filesystem to move it aside to), as an ExitEnv error.
func checkHyps(sb engine.Sandbox, ws string, hyps []engine.Hypothesis) error {
	c, ok := sb.(interface {
		Check(ws string, hyps []engine.Hypothesis) error
	})
	if !ok {
		return nil
	}
	if err := c.Check(ws, hyps); err != nil {
		return Env("%v", err)
	}
	return nil
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

// sharedOverlay is an overlay sandbox that holds the workspace lock shared
// for its whole run: overlay runs go on side by side, but none starts while
// an in-place run has a hypothesis in the checkout (it would become the
// overlay's lower layer), and an in-place run waits for them to finish.
type sharedOverlay struct {
	engine.Sandbox
	lock    string
	notices io.Writer
}

func (s *sharedOverlay) HoldRun(ctx context.Context) func() {
	rel, err := inplace.Lock(ctx, s.lock, false, s.notices)
	if err != nil {
		return func() {}
	}
	return rel
}

// SandboxBase is where upper dirs go: the state dir, unless that lies
// inside the workspace (a workspace at $HOME), where overlayfs would refuse
// it.
func SandboxBase(store snap.Store, ws string) string {
	base := store.SandboxDir()
	if rel, err := filepath.Rel(ws, base); err == nil && !strings.HasPrefix(rel, "..") {
		return overlay.TmpSandboxes()
	}
	return base
}

// ShadowDirs are the directories shadow writes that no hypothesis may see:
// the resolved state dir (records, journals, sandboxes) and
// $TMPDIR/shadow-UID (upper dirs when the state dir cannot hold them,
// --no-record logs). The overlay sandbox masks them.
func ShadowDirs(store snap.Store) []string {
	return []string{store.Root, overlay.TmpRoot()}
}
