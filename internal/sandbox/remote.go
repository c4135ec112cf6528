package sandbox

import (
	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/refusal"
	"github.com/shadow-dev/shadow/internal/sandbox/remote"
)

// openRemote is the remote sandbox over c.Nodes (docs/remote.md); the
// node "local" runs in this machine's own sandbox, opened as a local run's
// is (openLocal: refusing --keep and --freeze where it cannot do them). On
// the nodes, --keep leaves what each command wrote in the node's state dir
// and the result says where; --freeze syncs every mirror from one copy
// taken at the start (the sandbox's engine.Freezer). A node list remote
// cannot use is a usage refusal (exit code 2).
func openRemote(c Config) (engine.Sandbox, error) {
	ro := remote.Options{Nodes: c.Nodes, Dir: c.RemoteDir, Workspace: c.Workspace, StateRoot: c.Store.Root,
		Version: c.Version, Mode: c.Mode, Notices: c.Notices}
	for _, n := range c.Nodes {
		if n.Node == remote.LocalNode {
			sb, err := openLocal(c)
			if err != nil {
				return nil, err
			}
			ro.Local = sb
		}
	}
	sb, err := remote.New(ro)
	if err != nil {
		return nil, refusal.Usage("--remote: %v", err)
	}
	return sb, nil
}
