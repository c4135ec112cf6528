package sandbox

import (
	"fmt"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/freeze"
	"github.com/shadow-dev/shadow/snap"
)

// startFreeze copies the workspace's source files (mtimes kept) to a
// read-only layer above the workspace for every hypothesis of the run, and
// returns a report fixer to run first (it narrows the report's stale
// paths to the paths created since, the only changes that can reach a
// frozen run) and the clean-up. A sandbox that takes the copy itself
// (engine.Freezer: remote) is handed where it goes instead.
func startFreeze(cfg *engine.Config, store snap.Store) (func(*engine.Report), func(), error) {
	fz, remote := engine.As[engine.Freezer](cfg.Sandbox)
	if !remote && !engine.CapabilitiesOf(cfg.Sandbox.Mode()).Lowers {
		return nil, nil, fmt.Errorf("--freeze needs overlay or copy mode (this run is %s)", cfg.Sandbox.Mode())
	}
	base := Base(store, cfg.Workspace)
	freeze.CleanFrozen(base)
	dir := freeze.FrozenDir(base, cfg.RunID)
	var frozen map[string]bool
	var err error
	if remote {
		frozen, err = fz.Freeze(dir)
	} else {
		frozen, _, err = freeze.Freeze(cfg.Workspace, dir, engine.SourceFiles(cfg.Workspace, cfg.ScanExclude...))
	}
	if err != nil {
		freeze.RemoveFrozen(dir)
		return nil, nil, fmt.Errorf("--freeze: copy the source files: %w", err)
	}
	unfreeze := func() { freeze.RemoveFrozen(dir) }
	if remote {
		// Every mirror is synced from the copy. Nothing changed here after
		// it can reach a node, so a run with no "local" node reports no
		// stale paths; the local node's jobs have the copy as a lower
		// layer, and, as in a local frozen run, only paths created since
		// can reach them.
		return frozenFix(frozen, fz.FrozenAll()), unfreeze, nil
	}
	l := wrap(cfg.Sandbox)
	l.frozen = dir
	cfg.Sandbox = l
	return frozenFix(frozen, false), unfreeze, nil
}

// frozenFix is the report fixer that marks a frozen run's report: its stale paths
// narrowed to those not in frozen (created since the copy: they show
// through it), or to none when none can reach the run (all: a remote run
// whose mirrors were synced from the copy).
func frozenFix(frozen map[string]bool, all bool) func(*engine.Report) {
	return func(r *engine.Report) {
		r.Frozen = true
		var kept []string
		for _, s := range r.StalePaths {
			if !frozen[s] && !all {
				kept = append(kept, s)
			}
		}
		r.StalePaths = append([]string{}, kept...)
		r.Stale = len(kept) > 0
	}
}
