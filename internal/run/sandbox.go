package run

import (
	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox"
	"github.com/shadow-dev/shadow/snap"
)

// newSandbox is the run's sandbox: internal/sandbox.Open chooses and
// builds it from --mode and the probe (the same decision a remote node
// makes, and `shadow probe` explains), and refuses what it cannot honour
// (an ExitEnv error); with nodes it is the remote sandbox over them, the
// node "local" running in this machine's (a node list it cannot use is an
// ExitUsage error).
func newSandbox(o *Options, net Net, tmp Tmp, store snap.Store, ws string, nodes []engine.RemoteNode) (engine.Sandbox, error) {
	sb, err := sandbox.Open(sandbox.Config{
		Store: store, Workspace: ws, Mode: string(o.Mode), Version: o.Version,
		Needs: engine.Needs{NetIsolated: net == NetIsolated || net == NetPrivate, PrivateTmp: tmp == TmpPrivate,
			Freeze: o.Freeze, Keep: o.Keep, UpperRAM: o.Upper == UpperRAM},
		CopySkip: o.CopySkip, UpperSize: o.UpperSize, Lock: true, Notices: o.notices(), Writable: o.Writable,
		HostPorts: o.HostPorts, Memory: o.Memory, Jobs: o.Jobs, RequireSeal: o.RequireSeal,
		Nodes: nodes, RemoteDir: o.RemoteDir,
	})
	// A *sandbox.Refusal is already a *Error with its exit code.
	return sb, err
}

// checkHyps lets the sandbox refuse, before anything runs, hypotheses it
// cannot run safely (in-place mode: a directory delete with no place on
// its filesystem to move it aside to), as an ExitEnv error.
func checkHyps(sb engine.Sandbox, ws string, hyps []engine.Hypothesis) error {
	c, ok := engine.As[engine.Checker](sb)
	if !ok {
		return nil
	}
	if err := c.Check(ws, hyps); err != nil {
		return Env("%v", err)
	}
	return nil
}

// ShadowDirs are the directories no hypothesis may see
// (internal/sandbox.ShadowDirs).
func ShadowDirs(store snap.Store) []string { return sandbox.ShadowDirs(store) }
