package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/muesli/termenv"

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

// twoHunkFix is a small fix of two hunks, 15 lines: what the finished
// screen must show whole at 80x24 after a run of six hypotheses (the
// winner's diff is the answer; it must not need scrolling).
const twoHunkFix = `--- a/calc.py
+++ b/calc.py
@@ -1,5 +1,5 @@
 def add(a, b):
-    return a - b
+    return a + b
 
 
 def sub(a, b):
@@ -16,5 +16,5 @@
 
 def safe_div(a, b):
     if b == 0:
-        pass
+        return None
     return div(a, b)
`

// sixEvents is a finished pytest run of six hypotheses: fix_all wins
// with twoHunkFix; the others fail with pytest's long failure output;
// edit_tests passed by editing the tests and is disqualified; flaky
// passed one run of two.
func sixEvents() []engine.Event {
	run := "20260314-160000-six000"
	ev := func(sec float64, kind, hyp string) engine.Event {
		return engine.Event{Schema: engine.EventSchema, Run: run, Time: t0.Add(time.Duration(sec * float64(time.Second))), Kind: kind, Hyp: hyp}
	}
	names := []string{"baseline", "fix_add", "fix_div", "fix_all", "edit_tests", "flaky"}
	rs := ev(0, engine.KindRunStarted, "")
	rs.Hypotheses, rs.Mode, rs.Command, rs.Workspace, rs.Jobs = names, "overlay", []string{"pytest", "-q"}, "/work/six", 6
	out := []engine.Event{rs}
	var tail strings.Builder
	tail.WriteString("F...FF                                                                   [100%]\n")
	tail.WriteString("=================================== FAILURES ===================================\n")
	tail.WriteString("E       assert -1 == 5\nE        +  where -1 = <function add at 0x7f>(2, 3)\n\ntests/test_calc.py:5: AssertionError\n")
	tail.WriteString("=========================== short test summary info ============================\n")
	tail.WriteString("FAILED tests/unit/test_calc.py::test_add - assert -1 == 5\n")
	tail.WriteString("FAILED tests/unit/test_calc.py::test_div_zero - ZeroDivisionError: division by zero\n")
	tail.WriteString("2 failed, 4 passed in 0.29s\n")
	res := map[string]*engine.Result{}
	for i, n := range names {
		r := &engine.Result{Name: n, Status: engine.StatusFailed, ExitCode: ip(1), DurationMS: int64(1000 + 100*i),
			Tests: &engine.Tests{Framework: "pytest", Passed: 4, Failed: 2}, OutputTail: tail.String(),
			Log: "/state/runs/six/hyps/" + n + "/output.log", Fixed: []string{}, Broken: []string{}}
		switch n {
		case "baseline":
			r.Fixed, r.Broken = nil, nil
		case "fix_all":
			r.Status, r.ExitCode, r.Tests, r.OutputTail = engine.StatusPassed, ip(0), &engine.Tests{Framework: "pytest", Passed: 6}, "6 passed in 0.20s\n"
			r.Diff, r.ChangedLines, r.Files = twoHunkFix, 4, []string{"calc.py"}
			r.Fixed = []string{"tests/unit/test_calc.py::test_add", "tests/unit/test_calc.py::test_div_zero"}
		case "edit_tests":
			r.Status, r.ExitCode, r.Tests, r.OutputTail = engine.StatusPassed, ip(0), &engine.Tests{Framework: "pytest", Passed: 6}, "6 passed in 0.20s\n"
			r.Diff, r.ChangedLines = "--- a/tests/unit/test_calc.py\n+++ b/tests/unit/test_calc.py\n@@ -4 +4 @@\n-    assert calc.add(2, 3) == 5\n+    assert calc.add(2, 3) == -1\n", 2
			r.EditsTests = []string{"tests/unit/test_calc.py"}
			r.Disqualified = sp("edits the tests (tests/unit/test_calc.py)")
			r.Contrast = &engine.Contrast{Note: "only it touches tests/unit/test_calc.py", Files: []string{"tests/unit/test_calc.py"}, Configs: []string{}, Introspection: []string{}}
		case "flaky":
			r.Status, r.ExitCode, r.Tests = engine.StatusPassed, ip(0), &engine.Tests{Framework: "pytest", Passed: 6}
			r.Diff, r.ChangedLines = "--- a/calc.py\n+++ b/calc.py\n@@ -2 +2 @@\n-    return a - b\n+    return a + b  # sometimes\n", 2
			r.Runs, r.Passes, r.Flaky = 2, 1, []string{"tests/unit/test_calc.py::test_div_zero"}
		default:
			r.Diff, r.ChangedLines = "--- a/calc.py\n+++ b/calc.py\n@@ -2 +2 @@\n-    return a - b\n+    return a + b\n", 2
		}
		if n == "fix_div" { // an outlier among the candidates: "odd" in the leaderboard
			r.Contrast = &engine.Contrast{Note: "only it edits runner config setup.cfg", Files: []string{}, Configs: []string{"setup.cfg"}, Introspection: []string{}}
		}
		res[n] = r
		out = append(out, ev(0.1, engine.KindHypStarted, n))
		o := ev(0.5, engine.KindOutput, n)
		o.Text = r.OutputTail
		out = append(out, o)
		f := ev(1+float64(i)/10, engine.KindHypFinished, n)
		c := *r
		f.Result = &c
		out = append(out, f)
	}
	order := []string{"fix_all", "edit_tests", "flaky", "fix_add", "fix_div", "baseline"}
	w := "fix_all"
	rep := &engine.Report{Schema: engine.ReportSchema, Run: run, Workspace: "/work/six", Command: []string{"pytest", "-q"},
		Mode: "overlay", StartedAt: t0, DurationMS: 2000, Winner: &w}
	for i, n := range order {
		res[n].Rank = i + 1
		rep.Hypotheses = append(rep.Hypotheses, res[n])
	}
	rf := ev(2, engine.KindRunFinished, "")
	rf.Report = rep
	return append(out, rf)
}

// sixDone is a model that has seen the whole six-hypothesis run.
func sixDone(t testing.TB, p termenv.Profile, w, h int) *Model {
	m := newTestModel(t, p, w, h, sixEvents())
	evs := sixEvents()
	m.Update(RunDoneMsg{Report: evs[len(evs)-1].Report})
	return m
}
