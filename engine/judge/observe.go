package judge

import (
	"time"

	"github.com/shadow-dev/shadow/parse"
)

// Prepared is what one run of a hypothesis gets from the judge before it
// starts: the files its job holds (the canary planted, canary.go), the
// live parser with the canary's failures taken off (canary_live.go) and
// the view of its output that never shows the canary (canary_view.go).
type Prepared struct {
	Hyp    Hypothesis
	Parser TestParser
	View   *CanaryView

	planted    []string
	plantedAll bool
}

// Observation is what the core saw of one finished run, for the judge to
// read its verdict from.
type Observation struct {
	Prep Prepared
	// Summary is the parser's final counts, or the JUnit report's.
	Summary *parse.Summary
	// Ran: the sandbox ran the command to its end (no error of its own);
	// ExitCode, Signal and Changed are then its Outcome's.
	Ran      bool
	ExitCode int
	Signal   string
	Changed  []string
	// LastOutput is when the command last printed (zero: never), End
	// when it ended, Timeout the run's per-hypothesis limit.
	LastOutput time.Time
	End        time.Time
	Timeout    time.Duration
}

// Prepare plants the canary in h (its files with the common part) and
// wraps the run's parser.
func (c *Config) Prepare(h Hypothesis, parser TestParser) Prepared {
	jobHyp, planted, all := c.canary.plant(h.WithCommon())
	return Prepared{Hyp: jobHyp, Parser: c.canary.wrapLive(parser), View: c.canary.view(), planted: planted, plantedAll: all}
}

// observe fills r's verdict inputs from one finished run: its counts
// without the canary, its per-test outcomes, its suites, its status under
// the judge's rules (exit 0 after failing tests is not a pass; the
// canary's failure alone is), why it did not pass, the judge files its
// command changed and its attempt (--confirm).
func (c *Config) observe(jd *judge, r *result, obs Observation) {
	summary := obs.Summary
	summary, r.canary = c.canary.strip(summary)
	if p := c.canary; r.canary != nil && (p.runner == "go" || p.runner == "cargo" && !p.nextest) {
		r.canary.perJob, r.canary.planted = true, obs.Prep.planted
		r.canary.plantedAny = p.plantedIn(obs.Prep.Hyp)
		if p.runner == "go" {
			r.canary.goRun = true
			if !obs.Prep.plantedAll {
				r.canary.unwatched = p.unwatchedWrites(obs.Changed, obs.Prep.planted)
			}
		}
	}
	r.Tests = toTests(summary)
	if summary != nil {
		r.Tests.Unit = summary.Unit
		r.passedTests = set(summary.PassedTests)
		r.failedTests = set(summary.FailedTests)
	}
	accountSuites(r, summary)
	// Exit 0 after failing tests (candidate code calling os._exit(0), a
	// wrapper that drops the status) is not a pass (docs/report.md).
	if r.Status == StatusPassed && r.Tests != nil && r.Tests.Failed > 0 {
		r.Status = StatusFailed
	}
	c.canary.settle(r, obs.ExitCode, obs.Signal)       // canary_observe.go: its failure alone is a pass
	setReason(r, obs.LastOutput, obs.Timeout, obs.End) // reason.go: why it did not pass, in one line
	// The user's view of the output never shows the canary: its test,
	// planted by shadow, is not one of theirs (the log keeps it all).
	r.OutputTail = r.canary.without(r.OutputTail)
	if obs.Ran {
		r.judgeChanged = jd.judgePaths(obs.Changed, true)
	}
	r.attempts = []attempt{{passed: r.Status == StatusPassed, counted: r.Tests != nil, failed: r.failedTests}}
}

func toTests(s *parse.Summary) *Tests {
	if s == nil {
		return nil
	}
	return &Tests{Framework: s.Framework, Passed: s.Passed, Failed: s.Failed, Skipped: s.Skipped}
}

func set(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
