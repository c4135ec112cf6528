package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/inplace"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

// chooseSandbox turns the probe's verdict and --mode into a sandbox, or
// explains why the machine cannot do what was asked (exit 3).
//
//   - inplace: the journaled in-place sandbox, no probe needed;
//   - overlay: overlay shadows, or exit 3 with the probe's reason and fix;
//   - auto: overlay shadows when the probe says they work, else in place,
//     with a one-line notice on stderr.
func chooseSandbox(mode string, store snap.Store, ws string) (engine.Sandbox, int) {
	stateDir := store.WorkspaceDir(ws)
	if mode == "inplace" {
		return inplace.New(stateDir, os.Stderr), 0
	}
	base := sandboxBase(store, ws)
	v := overlay.CachedProbe(base, store.ProbeCache(), version)
	if v.Mode == "overlay" {
		// v.Upper: the probe moves upper dirs to $TMPDIR when the state
		// dir's filesystem cannot hold them.
		return &sharedOverlay{Sandbox: overlay.New(v.Upper, v.Options), lock: filepath.Join(stateDir, inplace.LockName)}, 0
	}
	if mode == "overlay" {
		fmt.Fprintf(os.Stderr, "shadow: overlay mode is unavailable: %s\n", v.Reason)
		if v.Fix != "" {
			fmt.Fprintf(os.Stderr, "fix: %s\n", v.Fix)
		}
		return nil, exitEnv
	}
	fmt.Fprintf(os.Stderr, "shadow: overlay unavailable (%s), running hypotheses one at a time in the checkout, which is restored after each; `shadow probe` says why and how to fix it\n", shortReason(v))
	return inplace.New(stateDir, os.Stderr), 0
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
	lock string
}

func (s *sharedOverlay) HoldRun(ctx context.Context) func() {
	rel, err := inplace.Lock(ctx, s.lock, false, os.Stderr)
	if err != nil {
		return func() {}
	}
	return rel
}

// sandboxBase is where upper dirs go: the state dir, unless that lies
// inside the workspace (a workspace at $HOME), where overlayfs would refuse
// it.
func sandboxBase(store snap.Store, ws string) string {
	base := store.SandboxDir()
	if rel, err := filepath.Rel(ws, base); err == nil && !strings.HasPrefix(rel, "..") {
		return overlay.TmpSandboxes()
	}
	return base
}
