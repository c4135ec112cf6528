package parse

import (
	"regexp"
	"strings"
)

// xctest reads XCTest as `swift test` prints it on Linux ("Test Case
// 'CalcTests.testAdd' passed (0.001 seconds)") and on macOS ("Test Case
// '-[CalcTests.CalcTests testAdd]' passed (0.001 seconds)."). Both name forms
// become "Class.method".
//
// Per-test lines count failed and skipped tests: the suites' "Executed N
// tests, with K failures" counts failed assertions, not tests, so K is not a
// test count. N of the outermost suite (the one that closes at depth 0) is the
// total, and passed is N less the failed and skipped tests.
type xctest struct {
	t      tally
	depth  int
	top    bool // the last suite that ended was an outermost one
	total  int  // N of the outermost suites, summed
	totals bool
}

func newXCTest() *xctest { return &xctest{} }

func (x *xctest) framework() string { return "xctest" }
func (x *xctest) recognised() bool  { return x.t.seen }
func (x *xctest) live() counts      { return x.t.live() }

var (
	xcCase     = regexp.MustCompile(`^Test Case '(.+)' (passed|failed|skipped) \(`)
	xcSuite    = regexp.MustCompile(`^Test Suite '.+' (started|passed|failed) at `)
	xcExecuted = regexp.MustCompile(`^Executed (\d+) tests?, with `)
)

func (x *xctest) line(s string) {
	trim := strings.TrimSpace(s)
	if !strings.HasPrefix(trim, "Test ") && !strings.HasPrefix(trim, "Executed ") {
		return
	}
	if m := xcCase.FindStringSubmatch(trim); m != nil {
		o := map[string]int{"passed": pass, "failed": fail, "skipped": skip}[m[2]]
		x.t.outcome(xcName(m[1]), o, true)
		return
	}
	if m := xcSuite.FindStringSubmatch(trim); m != nil {
		x.t.seen = true
		if m[1] == "started" {
			x.depth++
		} else {
			x.depth = max(x.depth-1, 0)
			x.top = x.depth == 0
		}
		return
	}
	if m := xcExecuted.FindStringSubmatch(trim); m != nil && x.top {
		x.top = false
		x.total += atoi(m[1])
		x.totals = true
		x.t.seen = true
	}
}

func xcName(s string) string {
	if strings.HasPrefix(s, "-[") && strings.HasSuffix(s, "]") {
		cls, method, ok := strings.Cut(s[2:len(s)-1], " ")
		if ok {
			if i := strings.LastIndexByte(cls, '.'); i >= 0 {
				cls = cls[i+1:]
			}
			return cls + "." + method
		}
	}
	return s
}

func (x *xctest) final() *Summary {
	if !x.t.seen {
		return nil
	}
	c := x.t.live()
	if x.totals {
		c.passed = max(x.total-c.failed-c.skipped, 0)
	}
	return &Summary{Framework: "xctest", Passed: c.passed, Failed: c.failed, Skipped: c.skipped,
		FailedTests: x.t.fail.list, PassedTests: x.t.pass.list}
}

// swiftTesting reads the swift-testing library's console output ("✔ Test
// addition() passed after 0.001 seconds.", "✘ Test subtraction() failed after
// ...", "➜ Test skipped() skipped.", and "Test run with 3 tests passed|failed
// after ..."). The marks differ between terminals (SF Symbols on macOS), so
// lines are matched by their words. Suites ("Suite CalcTests passed") are not
// tests. The run line's N is the total; passed is N less the failed and
// skipped tests. Names are the test's display name ("addition()"); a
// parameterised test's " with N test cases" is dropped.
type swiftTesting struct {
	t      tally
	total  int
	totals bool
}

func newSwiftTesting() *swiftTesting { return &swiftTesting{} }

func (w *swiftTesting) framework() string { return "swift-testing" }
func (w *swiftTesting) recognised() bool  { return w.t.seen }
func (w *swiftTesting) live() counts      { return w.t.live() }

var (
	stRun    = regexp.MustCompile(`^Test run with (\d+) tests?(?: in \d+ suites?)? (?:passed|failed) after `)
	stResult = regexp.MustCompile(`^Test (.+?) (passed after|failed after|skipped)`)
	stCases  = regexp.MustCompile(` with \d+ test cases?$`)
)

func (w *swiftTesting) line(s string) {
	trim := strings.TrimSpace(s)
	// Drop the leading mark, whatever glyph the terminal got.
	if i := strings.Index(trim, "Test "); i > 0 && i <= 8 && !strings.ContainsAny(trim[:i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'") {
		trim = trim[i:]
	} else if i != 0 {
		return
	}
	if m := stRun.FindStringSubmatch(trim); m != nil {
		w.total += atoi(m[1])
		w.totals = true
		w.t.seen = true
		return
	}
	if strings.HasPrefix(trim, "Test run ") || strings.HasPrefix(trim, "Test Case ") || strings.HasPrefix(trim, "Test Suite ") {
		return
	}
	m := stResult.FindStringSubmatch(trim)
	if m == nil {
		return
	}
	name := stCases.ReplaceAllString(m[1], "")
	switch m[2] {
	case "passed after":
		w.t.outcome(name, pass, true)
	case "failed after":
		w.t.outcome(name, fail, true)
	default:
		w.t.outcome(name, skip, true)
	}
}

func (w *swiftTesting) final() *Summary {
	if !w.t.seen {
		return nil
	}
	c := w.t.live()
	if w.totals {
		c.passed = max(w.total-c.failed-c.skipped, 0)
	}
	return &Summary{Framework: "swift-testing", Passed: c.passed, Failed: c.failed, Skipped: c.skipped,
		FailedTests: w.t.fail.list, PassedTests: w.t.pass.list}
}
