package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

// t0 pins the clock of every synthetic run.
var t0 = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

func ip(i int) *int { return &i }

func sp(s string) *string { return &s }

const fixDiff = `--- a/calc/calc.go
+++ b/calc/calc.go
@@ -1,5 +1,5 @@
 package calc
 
 // Add returns the sum of a and b.
-func Add(a, b int) int { return a - b }
+func Add(a, b int) int { return a + b }
`

const otherDiff = `--- a/calc/calc.go
+++ b/calc/calc.go
@@ -1,5 +1,6 @@
 package calc
 
 // Add returns the sum of a and b.
-func Add(a, b int) int { return a - b }
+func Add(a, b int) int {
+	return b - a // still wrong
+}
`

// liveEvents is a run of four hypotheses caught mid-way: baseline failed,
// plus-op passed, swap is running with live counts, rewrite is queued.
func liveEvents() []engine.Event {
	ev := func(sec float64, kind, hyp string) engine.Event {
		return engine.Event{Schema: engine.EventSchema, Run: "20260314-150926-abc123", Time: t0.Add(time.Duration(sec * float64(time.Second))), Kind: kind, Hyp: hyp}
	}
	var out []engine.Event
	rs := ev(0, engine.KindRunStarted, "")
	rs.Hypotheses = []string{"baseline", "plus-op", "swap", "rewrite"}
	rs.Mode, rs.Command, rs.Workspace, rs.Jobs = "overlay", []string{"go", "test", "./..."}, "/work/demo", 3
	out = append(out, rs)
	for _, n := range []string{"baseline", "plus-op", "swap"} {
		out = append(out, ev(0.1, engine.KindHypStarted, n))
	}
	o := ev(0.5, engine.KindOutput, "baseline")
	o.Text = "=== RUN   TestAdd\n    calc_test.go:9: Add(2, 3) = -1, want 5\n--- FAIL: TestAdd (0.00s)\n=== RUN   TestSub\n--- PASS: TestSub (0.00s)\nFAIL\nFAIL\texample.com/calc\t0.004s\n"
	out = append(out, o)
	o = ev(0.6, engine.KindOutput, "plus-op")
	o.Text = "=== RUN   TestAdd\n--- PASS: TestAdd (0.00s)\n=== RUN   TestSub\n--- PASS: TestSub (0.00s)\nPASS\nok  \texample.com/calc\t0.003s\n"
	out = append(out, o)
	o = ev(0.7, engine.KindOutput, "swap")
	o.Text = "=== RUN   TestAdd\n\x1b[31m--- FAIL: TestAdd\x1b[0m (0.00s)\n\tcalc_test.go:9: a very long line of output that goes on and on past the width of any column we could draw here\n=== RUN   TestSub\n"
	out = append(out, o)
	t := ev(0.8, engine.KindTests, "swap")
	t.Tests = &engine.Tests{Framework: "go", Passed: 0, Failed: 1}
	out = append(out, t)
	f := ev(1.2, engine.KindHypFinished, "baseline")
	f.Result = &engine.Result{Name: "baseline", Status: engine.StatusFailed, ExitCode: ip(1), DurationMS: 1100,
		Tests: &engine.Tests{Framework: "go", Passed: 1, Failed: 1}, OutputTail: "--- FAIL: TestAdd (0.00s)\nFAIL\n", Log: "/state/runs/x/hyps/baseline/output.log"}
	out = append(out, f)
	f = ev(1.3, engine.KindHypFinished, "plus-op")
	f.Result = &engine.Result{Name: "plus-op", Status: engine.StatusPassed, ExitCode: ip(0), DurationMS: 1200, ChangedLines: 2,
		Tests: &engine.Tests{Framework: "go", Passed: 2}, Files: []string{"calc/calc.go"}, Diff: fixDiff}
	out = append(out, f)
	out = append(out, ev(1.3, engine.KindHypStarted, "rewrite"))
	return out
}

// finishEvents ends the run of liveEvents: swap fails, rewrite times out.
func finishEvents() []engine.Event {
	ev := func(sec float64, kind, hyp string) engine.Event {
		return engine.Event{Schema: engine.EventSchema, Run: "20260314-150926-abc123", Time: t0.Add(time.Duration(sec * float64(time.Second))), Kind: kind, Hyp: hyp}
	}
	swap := &engine.Result{Name: "swap", Status: engine.StatusFailed, ExitCode: ip(1), DurationMS: 2100, ChangedLines: 3,
		Tests: &engine.Tests{Framework: "go", Passed: 1, Failed: 1}, Files: []string{"calc/calc.go"}, Diff: otherDiff,
		OutputTail: "=== RUN   TestAdd\n    calc_test.go:9: Add(2, 3) = 1, want 5\n--- FAIL: TestAdd (0.00s)\nFAIL\n"}
	rw := &engine.Result{Name: "rewrite", Status: engine.StatusTimedOut, DurationMS: 5000, ChangedLines: 12, Error: sp("timed out after 5s"),
		Files: []string{"calc/calc.go"}, Diff: "--- a/calc/calc.go\n+++ b/calc/calc.go\n@@ -1 +1 @@\n-package calc\n+package calc // rewritten\n"}
	f1 := ev(2.2, engine.KindHypFinished, "swap")
	f1.Result = swap
	f2 := ev(6.3, engine.KindHypFinished, "rewrite")
	f2.Result = rw
	var evs []engine.Event
	for _, e := range liveEvents() {
		if e.Kind == engine.KindHypFinished {
			evs = append(evs, e)
		}
	}
	base, plus := *evs[0].Result, *evs[1].Result
	base.Rank, plus.Rank = 4, 1
	plus.Fixed = []string{"TestAdd"}
	s2, r2 := *swap, *rw
	s2.Rank, r2.Rank = 2, 3
	w := "plus-op"
	rep := &engine.Report{Schema: engine.ReportSchema, Run: "20260314-150926-abc123", Workspace: "/work/demo",
		Command: []string{"go", "test", "./..."}, Mode: "overlay", StartedAt: t0, DurationMS: 6300, Winner: &w,
		Hypotheses: []*engine.Result{&plus, &s2, &r2, &base}}
	rf := ev(6.4, engine.KindRunFinished, "")
	rf.Report = rep
	return []engine.Event{f1, f2, rf}
}

// manyEvents is a run of n hypotheses all running, each with output.
func manyEvents(n int) []engine.Event {
	rs := engine.Event{Kind: engine.KindRunStarted, Run: "r", Time: t0, Mode: "overlay", Command: []string{"make", "test"}, Workspace: "/w"}
	var out []engine.Event
	for i := range n {
		rs.Hypotheses = append(rs.Hypotheses, fmt.Sprintf("hypothesis-%02d", i))
	}
	out = append(out, rs)
	for i := range n {
		name := rs.Hypotheses[i]
		out = append(out, engine.Event{Kind: engine.KindHypStarted, Hyp: name, Time: t0.Add(time.Duration(i) * 100 * time.Millisecond)})
		var b strings.Builder
		for j := range 50 {
			fmt.Fprintf(&b, "%s line %d\n", name, j)
		}
		out = append(out, engine.Event{Kind: engine.KindOutput, Hyp: name, Text: b.String()})
	}
	return out
}
