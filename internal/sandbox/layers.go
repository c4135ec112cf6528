package sandbox

import (
	"context"
	"io"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// LayerOptions are what a run asks of the layers stacked on its jobs.
type LayerOptions struct {
	Store snap.Store
	// Freeze (--freeze): a copy of the source files taken at the start,
	// above the workspace in every job (docs/modes.md "--freeze").
	Freeze bool
	// NoWarm (--no-warm): neither the workspace's warm layer nor the home
	// layer (docs/modes.md "The warm layer", "The home layer").
	NoWarm bool
	// CopySkip: --copy-skip was given, so copy mode leaves heavy dirs
	// out, which copying the warm layer in would bring back.
	CopySkip bool
	// Notices receives a line when the baseline cannot feed the layer.
	Notices io.Writer
}

// Layers are one run's layers beyond the checkout: --freeze's copy, the
// warm layer and the home layer. They are assembled here, beside the
// sandbox they wrap, into one wrapper (layered), so a job goes down
// through one Run and its outcome comes back through it; the run service
// only asks for them, hands their report fixers to the engine and
// releases them.
type Layers struct {
	frozenFix func(*engine.Report) // nil: not frozen
	unfreeze  func()
	warm      *warmRun // nil: no warm layer
}

// StackLayers wraps cfg.Sandbox in the run's layers (cfg.RunID names the
// frozen copy) and may ask the engine to run the baseline alone first
// (cfg.First: a cold home layer). A remote sandbox takes --freeze's copy
// itself (engine.Freezer: every mirror is synced from it) and stacks no
// warm layer (each node keeps its own mirror's ignored outputs warm), so
// it is called before the nodes are synced. A sandbox with no layer to
// stack is left as it is. The error is --freeze's (the mode stacks no
// layers, or the copy failed): nothing is left behind then.
func StackLayers(cfg *engine.Config, o LayerOptions) (*Layers, error) {
	l := &Layers{}
	if o.Freeze {
		fix, unfreeze, err := startFreeze(cfg, o.Store)
		if err != nil {
			return nil, err
		}
		l.frozenFix, l.unfreeze = fix, unfreeze
	}
	l.warm = startWarm(cfg, o)
	return l, nil
}

// Fixers are the report fixers (engine.Config.FixReport) of the layers,
// in their order: a frozen run's stale paths first, then the warm and
// home layers' field, which reads them. The layers are fed only when
// stateDirOK says the state dir is still the one the run started with
// (fsutil.Pin: never feed a replaced one).
func (l *Layers) Fixers(stateDirOK func() error) []func(*engine.Report) {
	var fixers []func(*engine.Report)
	if l.frozenFix != nil {
		fixers = append(fixers, l.frozenFix)
	}
	if w := l.warm; w != nil {
		fixers = append(fixers, func(r *engine.Report) {
			if stateDirOK() == nil {
				w.finish(r)
			}
		})
	}
	return fixers
}

// Release lets the layers go once the run has ended: the warm and home
// generations it held, what is left of their harvests, the frozen copy.
func (l *Layers) Release() {
	l.warm.release()
	if l.unfreeze != nil {
		l.unfreeze()
	}
}

// layered is the run's sandbox with its layers: the frozen copy above
// the job's own lowers, the warm layer below them, just above the
// workspace, and the home layer under $HOME.
type layered struct {
	engine.Sandbox
	frozen string   // --freeze's copy; "" when not frozen
	warm   *warmRun // nil: no warm or home layer
}

// wrap returns the run's sandbox wrapped once, however many layers stack.
func wrap(sb engine.Sandbox) *layered {
	if l, ok := sb.(*layered); ok {
		return l
	}
	return &layered{Sandbox: sb}
}

// Unwrap lets the engine find what the wrapped sandbox implements
// (engine.As): copy mode's CopyCounter, and the workspace hold a frozen
// run still needs, since it reads the live checkout below its frozen
// layer (ignored files, build caches).
func (s *layered) Unwrap() engine.Sandbox { return s.Sandbox }

func (s *layered) Run(ctx context.Context, job engine.Job) (engine.Outcome, error) {
	if s.frozen != "" {
		job.Lowers = append([]string{s.frozen}, job.Lowers...)
	}
	if s.warm != nil {
		return s.warm.run(ctx, s.Sandbox, job)
	}
	return s.Sandbox.Run(ctx, job)
}
