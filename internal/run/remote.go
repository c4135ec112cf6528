package run

import (
	"context"
	"strings"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/remote"
	"github.com/shadow-dev/shadow/snap"
)

// remoteNodes are the run's nodes (DESIGN.md §8): --remote's over the
// spec's "remote"; a node the flag names keeps the spec's "jobs" for it.
func remoteNodes(o *Options, spec *engine.Spec) ([]engine.RemoteNode, error) {
	nodes := spec.Remote
	if len(o.Remote) > 0 {
		jobs := map[string]int{}
		for _, n := range spec.Remote {
			jobs[n.Node] = n.Jobs
		}
		nodes = nil
		for _, name := range o.Remote {
			nodes = append(nodes, engine.RemoteNode{Node: name, Jobs: jobs[name]})
		}
	}
	for _, n := range nodes {
		if err := remote.ValidNodeName(n.Node); err != nil {
			return nil, Usage("--remote: %v", err)
		}
	}
	if len(nodes) == 0 && o.RemoteDir != "" {
		return nil, Usage("--remote-dir needs --remote")
	}
	return nodes, nil
}

// ParseRemote splits a --remote value: NODE[,NODE...].
func ParseRemote(s string) []string {
	var out []string
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// newRemoteSandbox is the remote sandbox over nodes; the node "local"
// runs in this machine's own sandbox (local builds it).
func newRemoteSandbox(o *Options, nodes []engine.RemoteNode, store snap.Store, ws string, local func() (engine.Sandbox, error)) (engine.Sandbox, error) {
	for _, need := range []struct {
		on   bool
		flag string
	}{{o.Freeze, "--freeze"}, {o.Keep, "--keep"}} {
		if need.on {
			return nil, Usage("%s is not available with --remote: the hypotheses run on other machines", need.flag)
		}
	}
	ro := remote.Options{Nodes: nodes, Dir: o.RemoteDir, Workspace: ws, StateRoot: store.Root, Version: o.Version, Notices: o.notices()}
	for _, n := range nodes {
		if n.Node == remote.LocalNode {
			sb, err := local()
			if err != nil {
				return nil, err
			}
			ro.Local = sb
		}
	}
	sb, err := remote.New(ro)
	if err != nil {
		return nil, Usage("--remote: %v", err)
	}
	return sb, nil
}

// prepareRemote readies the nodes of a remote run before the engine
// starts (connect, install, sync): none working is a refusal (exit 3).
// The returned func ends what it started. The run's -j, when neither the
// flags nor the spec gave one, becomes the slots the nodes offer.
func (p *Plan) prepareRemote(ctx context.Context, cfg *engine.Config) (func(), error) {
	sb, ok := cfg.Sandbox.(*remote.Sandbox)
	if !ok {
		return func() {}, nil
	}
	if err := sb.Prepare(ctx); err != nil {
		sb.Close()
		return nil, Env("%v", err)
	}
	// -j is the total: never more at once than the nodes have slots for
	// (a job waiting for one would count the wait in its duration).
	if slots := sb.Slots(); !p.jobsGiven || cfg.Jobs > slots {
		cfg.Jobs = slots
	}
	return sb.Close, nil
}
