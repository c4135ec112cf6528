package run

import (
	"context"
	"sort"
	"strings"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/engine/spec"
)

// remoteNodes are the run's nodes (docs/remote.md): --remote's over the
// spec's "remote"; a node the flag names keeps the spec's "jobs" for it.
func remoteNodes(o *Options, sp *engine.Spec) ([]engine.RemoteNode, error) {
	nodes := sp.Remote
	if len(o.Remote) > 0 {
		jobs := map[string]int{}
		for _, n := range sp.Remote {
			jobs[n.Node] = n.Jobs
		}
		nodes = nil
		for _, name := range o.Remote {
			nodes = append(nodes, engine.RemoteNode{Node: name, Jobs: jobs[name]})
		}
	}
	for _, n := range nodes {
		if err := spec.ValidNodeName(n.Node); err != nil {
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

// prepareRemote readies the nodes of a remote run before the engine
// starts (connect, install, sync): none working is a refusal (exit 3).
// The returned func ends what it started. The run's -j, when neither the
// flags nor the spec gave one, becomes the slots the nodes offer.
func (p *Plan) prepareRemote(ctx context.Context, cfg *engine.Config) (func(), error) {
	sb, ok := engine.As[engine.Preparer](cfg.Sandbox)
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

// staleFix is the report fixer that adds paths changed before the run's
// first hypothesis (while the nodes were synced) to the report's stale
// paths.
func staleFix(paths []string) func(*engine.Report) {
	return func(r *engine.Report) {
		seen := map[string]bool{}
		var all []string
		for _, p := range append(append([]string{}, r.StalePaths...), paths...) {
			if !seen[p] {
				seen[p] = true
				all = append(all, p)
			}
		}
		sort.Strings(all)
		r.StalePaths, r.Stale = all, true
	}
}
