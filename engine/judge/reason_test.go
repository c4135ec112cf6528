package judge

import (
	"github.com/shadow-dev/shadow/engine/report"

	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Each runner's real failure output (testdata/reason: go, python, node,
// cargo captured on this machine; pytest, vitest, jest and tsc in their
// documented formats) gives the line a person would quote.
func TestFailureReasonPerRunner(t *testing.T) {
	for file, want := range map[string]string{
		"go_fail.txt": "TestAdd: calc_test.go:3: Add(2,3) = -1, want 5",
		// go test -v prints a test's lines before its --- FAIL: the next
		// test's line is not this one's (shadow demo's baseline).
		"go_verbose_two_fails.txt":  "TestAdd: calc_test.go:7: Add(2, 3) = -1, want 5",
		"go_compile.txt":            "calc.go:2:37: undefined: c",
		"go_panic.txt":              "TestAdd: panic: runtime error: index out of range [2] with length 0 [recovered, repanicked]",
		"py_nomod.txt":              "pytest: No module named pytest (python3 has no pytest installed)",
		"sh_nf.txt":                 "command not found: pytest",
		"py_unittest.txt":           "test_add (test_calc.TestCalc.test_add): AssertionError: -1 != 5",
		"node_tap.txt":              "adds: Expected values to be strictly equal:",
		"rs_fail.txt":               "tests::adds panicked at src/lib.rs:3:47: assertion `left == right` failed",
		"pytest_fail.txt":           "tests/test_calc.py::test_add: assert -1 == 5",
		"pytest_collect_stderr.txt": "collection error in tests/test_calc.py: ImportError: cannot import name 'subtract' from 'calc' (calc.py)",
		"vitest_fail.txt":           "test/add.test.ts > add > adds two numbers: AssertionError: expected -1 to be 5 // Object.is equality",
		"jest_fail.txt":             "sum › adds 1 + 2 to equal 3: expect(received).toBe(expected) // Object.is equality",
		"tsc_fail.txt":              "src/add.ts:3:5: error TS2322: Type 'string' is not assignable to type 'number'.",
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "reason", file))
		if err != nil {
			t.Fatal(err)
		}
		if got := FailureReason(string(b)); got != want {
			t.Errorf("%s:\n got %q\nwant %q", file, got, want)
		}
	}
}

// A timeout whose command stopped printing long before is a hang: the
// reason says so and what it printed last, and the "may be contention"
// note goes; one still printing at the end keeps it.
func TestTimeoutReasonTellsHangFromSlow(t *testing.T) {
	busy := "timed out after 10s (4 at once on 2 cores, load 5.0: the machine was busy, so this may be contention rather than a hang)"
	end := time.Now()
	r := &result{Result: &Result{Status: StatusTimedOut, OutputTail: "collecting...\nwaiting for the lock on /tmp/x\n", Error: &busy}}
	setReason(r, end.Add(-9*time.Second), 10*time.Second, end)
	if r.Reason == nil || !strings.Contains(*r.Reason, "silent for the last 9s after: waiting for the lock on /tmp/x") {
		t.Errorf("hang reason: %v", r.Reason)
	}
	if strings.Contains(*r.Error, "contention") || !strings.Contains(*r.Error, "a hang") {
		t.Errorf("hang error still blames contention: %s", *r.Error)
	}

	busy2 := busy
	r = &result{Result: &Result{Status: StatusTimedOut, OutputTail: "test 1 ok\ntest 2 ok\n", Error: &busy2}}
	setReason(r, end.Add(-200*time.Millisecond), 10*time.Second, end)
	if r.Reason == nil || !strings.Contains(*r.Reason, "while still printing: test 2 ok") {
		t.Errorf("slow reason: %v", r.Reason)
	}
	if !strings.Contains(*r.Error, "contention") {
		t.Errorf("a command printing to the end lost the contention note: %s", *r.Error)
	}
}

// Nothing recognisable: the exit status and the last line; a pass has no
// reason.
func TestFailureReasonFallsBackToLastLine(t *testing.T) {
	code := 3
	r := &result{Result: &Result{Status: StatusFailed, ExitCode: &code, OutputTail: "building\nchecking v.txt\n"}}
	setReason(r, time.Time{}, 0, time.Now())
	if r.Reason == nil || *r.Reason != "exit 3; last line: checking v.txt" {
		t.Errorf("fallback: %v", r.Reason)
	}
	p := &result{Result: &Result{Status: StatusPassed, OutputTail: "error: but passed\n"}}
	setReason(p, time.Time{}, 0, time.Now())
	if p.Reason != nil {
		t.Errorf("a pass got a reason: %s", *p.Reason)
	}
}

// A broken environment (no pytest) must not say only "no hypothesis
// passed". When every hypothesis failed the same way the report says
// that, and each failure section carries its reason.
func TestReportSaysEveryHypothesisFailedTheSameWay(t *testing.T) {
	why := "pytest: No module named pytest (python3 has no pytest installed)"
	other := "tests/test_calc.py::test_add: assert -1 == 5"
	code := 1
	rep := func(reasons ...*string) *Report {
		r := &Report{Command: []string{"python3", "-m", "pytest"}}
		for i, re := range reasons {
			r.Hypotheses = append(r.Hypotheses, &Result{Name: string(rune('a' + i)), Status: StatusFailed, ExitCode: &code, Reason: re, OutputTail: "x\n"})
		}
		return r
	}
	var b strings.Builder
	report.WriteText(&b, rep(&why, &why, &why))
	if !strings.Contains(b.String(), "no hypothesis passed: every hypothesis failed the same way ("+why+"): the command cannot run here") {
		t.Errorf("the same failure everywhere:\n%s", b.String())
	}
	if strings.Count(b.String(), "reason: "+why) != 3 {
		t.Errorf("each failure section names its reason:\n%s", b.String())
	}
	b.Reset()
	report.WriteText(&b, rep(&why, &other))
	if !strings.Contains(b.String(), "\nno hypothesis passed\n") {
		t.Errorf("different failures:\n%s", b.String())
	}
}
