package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

// chooseSandbox turns the probe's verdict and --mode into a sandbox, or
// explains why the machine cannot do what was asked (exit 3).
func chooseSandbox(mode string, store snap.Store, ws string) (engine.Sandbox, int) {
	base := sandboxBase(store, ws)
	v := overlay.CachedProbe(base, store.ProbeCache(), version)
	if v.Mode == "overlay" && mode != "inplace" {
		return overlay.New(base, v.Options), 0
	}
	if mode == "inplace" {
		fmt.Fprintln(os.Stderr, "shadow: --mode inplace is not available in this build yet")
		return nil, exitEnv
	}
	fmt.Fprintf(os.Stderr, "shadow: overlay mode is unavailable: %s\n", v.Reason)
	if v.Fix != "" {
		fmt.Fprintf(os.Stderr, "fix: %s\n", v.Fix)
	}
	return nil, exitEnv
}

// sandboxBase is where upper dirs go: the state dir, unless that lies
// inside the workspace (a workspace at $HOME), where overlayfs would refuse
// it.
func sandboxBase(store snap.Store, ws string) string {
	base := store.SandboxDir()
	if rel, err := filepath.Rel(ws, base); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.Join(os.TempDir(), fmt.Sprintf("shadow-%d", os.Getuid()), "sandboxes")
	}
	return base
}
