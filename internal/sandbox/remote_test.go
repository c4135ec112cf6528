package sandbox

import (
	"errors"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/refusal"
	"github.com/shadow-dev/shadow/snap"
)

// Open with --remote's nodes is the remote sandbox over them: the run
// service asks this package for one sandbox, local or remote, and the node
// "local" runs in the sandbox Open would give a local run (docs/remote.md).
func TestOpenWithNodesIsTheRemoteSandbox(t *testing.T) {
	store, ws := snap.Store{Root: t.TempDir()}, t.TempDir()
	sb, err := Open(Config{Store: store, Workspace: ws, Mode: string(engine.ModeInplace),
		Nodes: []engine.RemoteNode{{Node: "n1"}, {Node: "local", Jobs: 1}}})
	if err != nil {
		t.Fatalf("Open with nodes: %v", err)
	}
	if sb.Mode() != engine.ModeRemote {
		t.Fatalf("Open with nodes gave a %s sandbox, want remote", sb.Mode())
	}
	if _, ok := engine.As[engine.Preparer](sb); !ok {
		t.Errorf("the remote sandbox is no engine.Preparer: the plan could not ready its nodes")
	}
	// The local node's sandbox is refused as a local run's would be.
	_, err = Open(Config{Store: store, Workspace: ws, Mode: string(engine.ModeInplace),
		Needs: engine.Needs{NetIsolated: true}, Nodes: []engine.RemoteNode{{Node: "local"}}})
	var r *Refusal
	if !errors.As(err, &r) || r.Code != refusal.ExitEnv || !strings.Contains(r.Msg, "needs overlay mode") {
		t.Errorf("the local node under in-place mode with an isolated network: %v, want the local refusal (exit code 3)", err)
	}
	// A node list the remote sandbox cannot use is a usage refusal.
	_, err = Open(Config{Store: store, Workspace: ws, Mode: string(engine.ModeInplace), RemoteDir: "rel",
		Nodes: []engine.RemoteNode{{Node: "n1"}}})
	if !errors.As(err, &r) || r.Code != refusal.ExitUsage || !strings.HasPrefix(r.Msg, "--remote: --remote-dir") {
		t.Errorf("a relative --remote-dir: %v, want a usage refusal (exit code 2) naming --remote-dir", err)
	}
}
