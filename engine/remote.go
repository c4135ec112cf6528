package engine

// SyncReporter is implemented by a sandbox that mirrored the checkout to
// other machines before the run (remote nodes): the report carries what
// each sync cost.
type SyncReporter interface {
	Syncs() []NodeSync
}

// Exhauster is implemented by a sandbox that can lose, mid-run, everything
// it runs jobs on (remote nodes that have all failed). Once Exhausted
// returns an error, Run starts no more hypotheses: those left are reported
// as not run (status error, runs 0, the reason in error), the report's
// error says why, and --apply writes nothing (docs/remote.md: the run fails
// with exit 3 when no node works).
type Exhauster interface {
	Exhausted() error
}

// NotRunError is a Sandbox.Run error that means the job never started
// anywhere (no node was left to take it): its result has runs 0.
type NotRunError struct{ Err error }

func (e *NotRunError) Error() string { return "not run: " + e.Err.Error() }
func (e *NotRunError) Unwrap() error { return e.Err }

// exhausted is the sandbox's Exhausted, nil for a sandbox that cannot be.
func exhausted(sb Sandbox) error {
	if x, ok := As[Exhauster](sb); ok {
		return x.Exhausted()
	}
	return nil
}

// markNotRun makes r a hypothesis the run never started because the
// sandbox had nothing left to run it on.
func markNotRun(r *Result, why error) {
	r.Status = StatusError
	msg := (&NotRunError{Err: why}).Error()
	r.Error = &msg
	r.Runs, r.Passes = 0, 0
}
