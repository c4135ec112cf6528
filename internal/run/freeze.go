package run

import (
	"context"
	"fmt"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/freeze"
)

// frozenSandbox stacks a copy of the source files above the workspace in
// every job (--freeze).
type frozenSandbox struct {
	engine.Sandbox
	dir string
}

// Unwrap lets the engine find what the wrapped sandbox implements
// (engine.As): copy mode's CopyCounter, and the workspace hold a frozen
// run still needs, since it reads the live checkout below its frozen layer
// (ignored files, build caches).
func (s frozenSandbox) Unwrap() engine.Sandbox { return s.Sandbox }

func (s frozenSandbox) Run(ctx context.Context, job engine.Job) (engine.Outcome, error) {
	job.Lowers = append([]string{s.dir}, job.Lowers...)
	return s.Sandbox.Run(ctx, job)
}

// startFreeze copies the workspace's source files (mtimes kept) to a
// read-only layer above the workspace for every hypothesis of the run, and
// returns a report fixer to run first (it narrows the report's stale
// paths to the paths created since, the only changes that can reach a
// frozen run) and the clean-up.
func (p *Plan) startFreeze(cfg *engine.Config) (func(*engine.Report), func(), error) {
	if !engine.CapabilitiesOf(cfg.Sandbox.Mode()).Lowers {
		return nil, nil, fmt.Errorf("--freeze needs overlay or copy mode (this run is %s)", cfg.Sandbox.Mode())
	}
	base := SandboxBase(p.store, cfg.Workspace)
	freeze.CleanFrozen(base)
	dir := freeze.FrozenDir(base, cfg.RunID)
	frozen, _, err := freeze.Freeze(cfg.Workspace, dir, engine.SourceFiles(cfg.Workspace, cfg.ScanExclude...))
	if err != nil {
		freeze.RemoveFrozen(dir)
		return nil, nil, fmt.Errorf("--freeze: copy the source files: %w", err)
	}
	cfg.Sandbox = frozenSandbox{Sandbox: cfg.Sandbox, dir: dir}
	return frozenFix(frozen, false), func() { freeze.RemoveFrozen(dir) }, nil
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
