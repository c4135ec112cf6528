package judge

import "github.com/shadow-dev/shadow/internal/scan"

// result is one hypothesis as the judge works on it during a run: its
// entry of the report (*Result, what shadow.report/v1 and the events
// carry) and the working state its verdict is made from, which the
// contract does not carry (docs/report.md "Ranking"). Run keeps one per
// hypothesis, by name; the core fills the entry and hands the judge the
// rest as an Observation; events and the report get only the *Result, so
// every other reader (the TUI, `shadow watch`, `shadow merge`) ranks from
// exported data (Rank, RankLive).
type result struct {
	*Result

	// Per-test outcomes, used for fixed/broken.
	passedTests map[string]bool
	failedTests map[string]bool
	// judgeProposed: the judge files among the hypothesis's own writes and
	// deletes; judgeChanged: those its command changed at run time;
	// allowTestEdits from the run; attempts: one per run (--confirm);
	// confirmFailed: a candidate that failed a rerun; confirmed: one that
	// passed them; tier: rank's.
	judgeProposed  []string
	judgeChanged   []string
	allowTestEdits bool
	// allowSuspicious: --allow-suspicious, a suspicious pass keeps its
	// tier.
	allowSuspicious bool
	attempts        []attempt
	confirmFailed   bool
	confirmed       bool
	tier            int
	// judged: the verdict came from the candidate's code under the
	// checkout's judge (judged.go); codeLines, the changed lines of that
	// code part, break ties in its place of ChangedLines.
	judged    bool
	codeLines int

	// suites: each runner's part when the command ran several
	// (suites.go); deselected, the tests the runner said it left out.
	suites     []suite
	deselected int
	// canary: what the run showed of the tamper canary (canary.go).
	canary *canaryObs
	// scanHits: the judge-aware scan's hits on its code part (scan.go),
	// made once for suspicious and the contrast (contrast.go).
	scanHits []scan.Hit
}

// entries are the report entries of rs, in order.
func entries(rs []*result) []*Result {
	out := make([]*Result, len(rs))
	for i, r := range rs {
		out[i] = r.Result
	}
	return out
}

// snapshot is a copy of r's report entry, as an event carries it.
func (r *result) snapshot() *Result {
	c := *r.Result
	return &c
}
