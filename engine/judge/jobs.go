package judge

import (
	"context"
	"io"
	"time"

	"github.com/shadow-dev/shadow/parse"
)

// Config is what the judge knows of a run: the plain data of the core's
// configuration it judges by. It holds no sandbox: the judge's extra jobs
// (the runner's collection, the cross phase, --confirm's reruns) run
// through Jobs, which the core gives it.
type Config struct {
	Workspace string // absolute checkout root
	Subdir    string // '/'-separated, relative to Workspace
	Command   []string
	Hyps      []Hypothesis
	Jobs      int           // at most this many jobs at once (already 1 for a serial sandbox)
	Timeout   time.Duration // per hypothesis; 0 = none
	JUnit     string        // relative to the command's directory
	LogDir    string        // each hypothesis's logs go to LogDir/NAME/
	// TestPaths, AllowTestEdits, NoCross, AllowSuspicious, Confirm,
	// TestsFrom: the run's flags (engine.Config says each).
	TestPaths       []string
	AllowTestEdits  bool
	NoCross         bool
	AllowSuspicious bool
	Confirm         int
	TestsFrom       *TestsFrom
	// NewParser makes a test-output parser for a command; nil = no counts.
	NewParser func(command []string) TestParser
	// ParseJUnit reads a JUnit XML report; its counts win over the output's.
	ParseJUnit func([]byte) (*parse.Summary, error)
	// Shard and ShardHyps: this run is one shard of a larger one (the
	// cross phase of a shard plans every proposal, not only its slice's).
	Shard     *ShardInfo
	ShardHyps []Hypothesis
	// Now is the clock; nil = time.Now.
	Now func() time.Time

	// jobs runs the judge's extra jobs (Setup sets it).
	jobs Jobs
	// canary is the run's tamper canary (canary.go; Setup sets it).
	canary *canaryPlan
	// jobHyps is what each hypothesis's sandbox gets (Setup sets it): its
	// code part under the checkout's judge (judged.go), or all of it with
	// AllowTestEdits.
	jobHyps map[string]Hypothesis
}

// TestParser reads test counts from a command's output as it streams
// (parse.Stream implements it; it is engine.TestParser's method set).
type TestParser interface {
	io.Writer
	Live() *parse.Summary
	Final() *parse.Summary
}

// Job is one extra job of the judge: a command over a view of the
// checkout holding Hyp's files, in the run's sandbox, with the run's
// environment, network and /tmp.
type Job struct {
	Hyp     Hypothesis
	Command []string
	Output  io.Writer
	// Collect names files (workspace-relative) the command may write that
	// the judge reads after it ends (a JUnit report).
	Collect []string
}

// Outcome is what the sandbox reported of a Job.
type Outcome struct {
	ExitCode  int
	Collected map[string][]byte
}

// Jobs is what the core gives the judge to run its extra jobs, so the
// judge never holds a sandbox (and its tests run with a fake).
type Jobs interface {
	// Run runs one job to its end or ctx's; an error is the sandbox's.
	Run(ctx context.Context, job Job) (Outcome, error)
	// Rerun runs h once more as attempt n (--confirm) the way the run ran
	// it first (its output path, its events stamped with n), into r,
	// handing observe what the judge reads of it before the core's own
	// finishing touches. It emits no hyp_finished.
	Rerun(ctx context.Context, h Hypothesis, n int, r *Result, observe func(Observation))
	// Emit sends an event of the run, stamped with attempt n (0: the first
	// run).
	Emit(n int, ev Event)
	// OpenLog creates a capped log at path (a cross job's output).
	OpenLog(path string) (io.WriteCloser, error)
	// Exhausted is the sandbox's reason no more jobs can run (every remote
	// node failed), nil while they can.
	Exhausted() error
}
