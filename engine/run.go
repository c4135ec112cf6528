package engine

import (
	"context"
	"time"

	"github.com/shadow-dev/shadow/engine/judge"
	"github.com/shadow-dev/shadow/parse"
)

// Config is one run: the validated hypotheses, what to run them with and
// where their output goes.
type Config struct {
	RunID     string
	Workspace string // absolute checkout root
	Subdir    string // '/'-separated, relative to Workspace
	Command   []string
	Hyps      []Hypothesis
	Jobs      int           // at most this many at once (1 when the sandbox is serial)
	Timeout   time.Duration // per hypothesis; 0 = none
	Env       []string
	Net, Tmp  string
	JUnit     string // relative to the command's directory
	LogDir    string // each hypothesis's output goes to LogDir/NAME/output.log
	MaxOutput int64  // cap of each output.log (--max-output); 0 = DefaultMaxOutput
	Keep      bool   // keep what each command wrote in LogDir/NAME/upper
	// ScanExclude are absolute directories the staleness scan leaves out:
	// shadow's own state when it lies inside the checkout.
	ScanExclude []string
	Apply       bool // write the winner into the checkout
	// TestPaths are globs naming the test files (nil: DefaultTestPaths);
	// AllowTestEdits lets a candidate that changes the judge or loses
	// tests win (docs/report.md).
	TestPaths      []string
	AllowTestEdits bool
	// NoCross turns the cross phase off (--no-cross, "no_cross"): no
	// candidate's proposed tests run on the others (cross.go).
	NoCross bool
	// WithTests: --apply writes the winner's judge part (its proposed
	// tests) too, not only its code (--with-tests).
	WithTests bool
	// AllowSuspicious lets a candidate whose code the scan flagged win
	// (--allow-suspicious; engine/judge/scan.go).
	AllowSuspicious bool
	// Confirm reruns the baseline and the leading candidate this many more
	// times before a winner is named (--confirm N; 0 = none).
	Confirm int
	// TestsFrom are the tests written before the candidates were seen
	// (--tests-from): already laid over every hypothesis's common part
	// (WithTestsFrom); here for the judge and the report.
	TestsFrom *judge.TestsFrom
	Sandbox   Sandbox
	Emit      func(Event)
	// FixReport complete the report, in order, before run_finished is
	// emitted (--freeze's stale paths, the warm layer's field): consumers
	// only read it (engine.Broker delivers it to them concurrently).
	FixReport []func(*Report)
	// NewParser makes a test-output parser for a command; nil = no counts.
	NewParser func(command []string) TestParser
	// ParseJUnit reads a JUnit XML report; its counts win over the output's.
	ParseJUnit func([]byte) (*parse.Summary, error)
	// Now is the clock (tests pin it); nil = time.Now.
	Now func() time.Time

	// First, when set, names a hypothesis run alone before any other
	// starts; AfterFirst runs once it has ended, before the others start
	// (the home layer's baseline first: internal/sandbox/layers_home.go). FirstWait,
	// when set, decides how long the others wait: it returns true once
	// ended is closed, false when they should start beside it (it hangs,
	// or runs too long to be worth waiting for); AfterFirst then never runs.
	First      string
	AfterFirst func(*Result)
	FirstWait  func(ended <-chan struct{}) bool

	// Shard: this run is one shard of a larger one (--shard K/N); the
	// report carries it for `shadow merge`. ShardHyps are every hypothesis
	// of the whole spec, resolved, in spec order (not part of the report):
	// the cross phase of a shard plans every proposal, not only its slice's.
	Shard     *ShardInfo
	ShardHyps []Hypothesis
}

// Run runs every hypothesis and returns the ranked report. It returns when
// every job has ended; cancelling ctx cancels the run (queued hypotheses
// are reported as cancelled, running ones are ended). Each stage is a
// function of its own: the report's head and run_started (run_start.go),
// the judge's set-up (run_judge_setup.go), the scheduling loop
// (run_schedule.go), what the outcomes mean once every job has ended
// (run_judge_after.go), the report's body (run_report.go), the apply
// (run_apply.go) and run_finished (run_report.go).
func Run(ctx context.Context, cfg Config) *Report {
	rs := startRun(&cfg)
	if h, ok := As[Holder](cfg.Sandbox); ok {
		defer h.HoldRun(ctx)()
	}
	rs.openCheckout()
	rs.setUpJudge(ctx)
	rs.schedule(ctx)
	rs.judgeAfter(ctx)
	rs.assemble()
	rs.applyWinner()
	return rs.finish()
}

// runState is what the stages of one Run share: set by startRun,
// openCheckout and setUpJudge, read and filled by the stages after them.
type runState struct {
	cfg      *Config
	now      func() time.Time
	em       *emitter
	started  time.Time
	rep      *Report
	copyCost func(*Report)
	jobs     int // at most this many jobs at once

	orig  map[string]FileState
	stale StaleWatch

	// jr is the run's judge (engine/judge): its state, keyed by
	// hypothesis, and the report entries the stages fill.
	jr *judge.Run
}
