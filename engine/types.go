// Package engine validates a spec, runs its hypotheses through a Sandbox,
// ranks the results and reports them. It knows nothing of terminals or of
// how a sandbox isolates a run: main wires a Sandbox (overlay or in-place)
// and consumers of the event stream (headless printers, the TUI, the
// snapshot store).
package engine

import (
	"context"
	"io"
)

// Job is what a Sandbox runs: one hypothesis's command in a view of the
// workspace that holds the hypothesis's files.
type Job struct {
	Workspace string // absolute path of the checkout
	Subdir    string // '/'-separated, relative to Workspace; "" for the root
	Hyp       Hypothesis
	Command   []string
	Env       []string  // complete environment of the command
	Net       string    // "host" or "isolated"
	Tmp       string    // "shared" or "private"
	Output    io.Writer // receives stdout and stderr, merged
	// Collect names files (workspace-relative) the command may write that
	// the engine wants to read after the command ends, e.g. a JUnit report.
	Collect []string
	// KeepDir, when set, is where the sandbox leaves what the command wrote
	// (overlay: the upper directory) instead of removing it.
	KeepDir string
	// Lowers are read-only directories stacked above the workspace, the
	// first topmost (overlay: lowerdir=L1:L2:WORKSPACE). --freeze puts a
	// copy of the source files there, so edits to the checkout during the
	// run do not reach it.
	Lowers []string
	// HomeLayer, when set, is the home layer's generation to show under
	// the caches the command writes outside the workspace, read-only
	// (overlay: a mirror of absolute paths, HomeLayer/C stacked between
	// each cache C and the job's upper; copy: the caches a sealed command
	// is given a copy of). KeepHome, when set, is where the sandbox leaves
	// what the command wrote to those caches (overlay: at KeepHome/C;
	// copy: its caches) instead of removing it. internal/sandbox/warm.
	HomeLayer string
	KeepHome  string
	// HomeCaches are the cache directories (absolute) HomeLayer and
	// KeepHome are about (overlay: each the layer holds something for
	// gets an overlay of its own; the writes to every one are kept apart
	// from the rest of $HOME's).
	HomeCaches []string
}

// Outcome is what a Sandbox reports about one finished Job. When ctx ends
// first, the sandbox must have ended every process of the job before it
// returns (the engine decides whether that was a timeout or a cancel).
type Outcome struct {
	ExitCode  int               // the command's exit status; -1 when killed by a signal
	Signal    string            // the signal that ended it, if any
	Collected map[string][]byte // contents of Job.Collect entries the command wrote
	// Warnings are things the user must hear about even when the command
	// passed, e.g. an in-place run that left a concurrently edited file
	// alone; the engine appends them to the result's error.
	Warnings []string
	// Changed lists the workspace-relative paths the command itself
	// created, changed or deleted during the run (overlay: the entries of
	// the upper dir that the hypothesis did not write; copy mode: by
	// comparison). nil when the sandbox cannot tell. The engine uses it to
	// see a command that rewrites the judge (tests, runner config) at run
	// time (edits_tests, docs/report.md).
	Changed []string
	// Outside lists what the command wrote outside the workspace, in the
	// places the sandbox let it write there and threw away afterwards
	// (overlay: $HOME, --writable paths, caches); nil when the sandbox
	// cannot tell. The engine classifies and caps it (outside.go,
	// engine/checkout/outside.go).
	Outside []OutsideWrite
	// PeakMemoryBytes and Limits: the job's peak memory where the
	// sandbox could read it, and what it enforced (Result's fields).
	PeakMemoryBytes *int64
	Limits          *HypLimits
	// Node is the remote node the job ran on ("" for this machine) and
	// Mode the sandbox mode it ran in there ("" for the sandbox's Mode()).
	Node string
	Mode string
	// Seal is what sealed the command where the mode has no namespace
	// (copy, in-place: "landlock abi 7"), or "none: ..." with why.
	Seal string
}

// RunHolder is implemented by a sandbox that must hold the workspace for a
// whole run (in-place mode: no other run may read or change the checkout
// between this run's hypotheses). Run calls HoldRun before it reads the
// checkout and the returned release when the report is complete.
type RunHolder interface {
	HoldRun(ctx context.Context) (release func())
}

// Sandbox isolates one hypothesis's run: the drivers (overlay, copy,
// inplace, remote) implement it; optional interfaces (optional.go) are
// found with As.
type Sandbox interface {
	// Mode is the driver's mode, as reported.
	Mode() Mode
	// Parallel reports whether several jobs may run at once.
	Parallel() bool
	// Run runs the job to completion or until ctx ends. An error means the
	// sandbox itself failed (not the command); it is reported as status
	// "error" with the error's text.
	Run(ctx context.Context, job Job) (Outcome, error)
}
