package engine

import (
	"context"
)

// A sandbox may implement any of the optional interfaces below; the engine
// and the run service find them with As, through every wrapper, so a
// wrapper (--freeze's, the warm layer's, the workspace lock's) forwards
// none of them by hand and can drop none.

// Unwrapper is a sandbox that wraps another (as an error wraps another for
// errors.As): As looks through it.
type Unwrapper interface {
	Unwrap() Sandbox
}

// As finds the first sandbox in sb's chain of wrappers (sb itself first)
// that implements T.
func As[T any](sb Sandbox) (T, bool) {
	for sb != nil {
		if t, ok := sb.(T); ok {
			return t, true
		}
		u, ok := sb.(Unwrapper)
		if !ok {
			break
		}
		sb = u.Unwrap()
	}
	var zero T
	return zero, false
}

// Holder is a sandbox that holds the workspace for a whole run (RunHolder).
type Holder = RunHolder

// Checker is a sandbox that refuses, before anything runs, hypotheses it
// cannot run safely (in-place mode: a directory delete with no place on
// its filesystem to move it aside to).
type Checker interface {
	Check(ws string, hyps []Hypothesis) error
}

// Preparer is a sandbox that readies itself before the run starts (remote
// nodes: connect, install, sync). Prepare failing is a refusal; Close ends
// what Prepare started; Slots is how many jobs it can run at once.
type Preparer interface {
	Prepare(ctx context.Context) error
	Slots() int
	Close()
}

// Freezer is a sandbox that takes --freeze's copy of the source files
// itself (remote: every mirror is synced from that one copy). It returns
// the files copied; Frozen reports whether no change made here after the
// copy can reach any job (no job runs on this machine's checkout).
type Freezer interface {
	Freeze(dir string) (map[string]bool, error)
	FrozenAll() bool
}

// RunNamer is a sandbox that must know the run's id before it starts
// (remote: what --keep leaves on a node is kept under it).
type RunNamer interface {
	SetRunID(id string)
}
