// Package checkout is the checkout as a run found it and the one way a
// run writes into it: the originals (each target's state when the run
// started, the "before" of every diff), apply (checked against the
// originals, written beside each target and renamed over it, serialised by
// a lock on the checkout), what of a candidate an agent, an editor or git
// would obey there (refused without force), and what a command wrote
// outside the workspace that tries to outlive the run (docs/report.md,
// "What git would obey"; docs/cli.md, apply's flags).
//
// It imports no engine package but the contract and the spec
// (engine/report, engine/spec): the core, the judge and the staleness
// watch build on it.
package checkout
