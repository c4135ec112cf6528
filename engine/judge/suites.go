package judge

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shadow-dev/shadow/parse"
)

// Runner accounting (docs/report.md, "Runners, counted apart"): a command that
// runs several runners (a vitest suite whose files also print node:test's TAP
// lines; a Makefile running go test then pytest) is several suites, and two
// runs are compared suite by suite, like with like. Summed, one runner that
// names every test (node's TAP) made the merged output look as if it named
// every test, and the vitest tests its default reporter leaves unnamed once
// they pass looked lost: a real fix was disqualified as "does not run 6 of the
// baseline's tests".

// suite is one runner's part of a result.
type suite struct {
	fw                      string
	unit                    string
	passed, failed, skipped int
	deselected              int
	passedTests             map[string]bool
	failedTests             map[string]bool
}

// accountSuites records the runners' own summaries of a result (nil with
// one runner: the result's own counts are that suite) and what they left
// out (deselected).
func accountSuites(r *result, s *parse.Summary) {
	r.suites = nil
	r.deselected = 0
	if s == nil {
		return
	}
	r.deselected = s.Deselected
	for _, x := range s.Suites {
		st := suite{fw: x.Framework, unit: x.Unit, passed: x.Passed, failed: x.Failed, skipped: x.Skipped,
			deselected: x.Deselected, passedTests: set(x.PassedTests), failedTests: set(x.FailedTests)}
		for n := range st.failedTests {
			delete(st.passedTests, n)
		}
		r.suites = append(r.suites, st)
	}
}

// suitesOf is r's suites: its own, or its whole result as one.
func suitesOf(r *result) []suite {
	if len(r.suites) > 0 {
		return r.suites
	}
	if r.Tests == nil {
		return nil
	}
	return []suite{{fw: r.Tests.Framework, unit: r.Tests.Unit, passed: r.Tests.Passed, failed: r.Tests.Failed,
		skipped: r.Tests.Skipped, deselected: r.deselected, passedTests: r.passedTests, failedTests: r.failedTests}}
}

// suiteNamesAll is namesAll for one suite.
func (s suite) namesAll() bool {
	return s.unit == "" && (s.passed == 0 || len(s.passedTests) > 0)
}

// everySuiteNamesAll reports whether each runner of r named every test it
// ran: only then may r's tests be compared by name as a whole.
func everySuiteNamesAll(r *result) bool {
	for _, s := range r.suites {
		if !s.namesAll() {
			return false
		}
	}
	return true
}

// multiSuite reports whether either result ran several runners.
func multiSuite(base, r *result) bool { return len(base.suites) > 1 || len(r.suites) > 1 }

// lostBySuite is lostTests runner by runner: each of the baseline's suites
// against r's suite of the same runner (none: all its tests are lost). The
// counts add up; the reason names the runner.
func lostBySuite(base, r *result) (n int, lost []string, why string) {
	rs := map[string]suite{}
	for _, s := range suitesOf(r) {
		rs[s.fw] = s
	}
	var whys []string
	bs := suitesOf(base)
	for _, b := range bs {
		c, ok := rs[b.fw]
		if !ok {
			c = suite{fw: b.fw, unit: b.unit}
		}
		k, l, w := lostInSuite(b, c)
		if k == 0 {
			continue
		}
		n += k
		lost = append(lost, l...)
		if len(bs) > 1 {
			w = b.fw + ": " + w
		}
		whys = append(whys, w)
	}
	sort.Strings(lost)
	return n, lost, strings.Join(whys, "; ")
}

// lostInSuite compares one runner's tests: by totals (fewer run, more
// skipped or deselected), and by name where both name every test.
func lostInSuite(base, r suite) (n int, lost []string, why string) {
	noun := "test"
	if base.unit == "package" {
		noun = "package"
	}
	fewer := (base.passed + base.failed) - (r.passed + r.failed)
	skipped := r.skipped - base.skipped
	desel := r.deselected - base.deselected
	n = max(0, fewer, skipped, desel)
	switch {
	case n == 0:
	case fewer > skipped && fewer >= desel:
		why = fmt.Sprintf("runs %d fewer %s than the baseline", fewer, plural(fewer, noun))
	case skipped >= desel:
		why = fmt.Sprintf("skips %d more %s than the baseline", skipped, plural(skipped, noun))
	default:
		// A deselected test is left out as surely as a deleted one, and a
		// config that also runs another twice keeps the totals level.
		why = fmt.Sprintf("deselects %d more %s than the baseline", desel, plural(desel, noun))
	}
	if base.namesAll() && r.namesAll() {
		for _, m := range []map[string]bool{base.passedTests, base.failedTests} {
			for name := range m {
				if !r.passedTests[name] && !r.failedTests[name] && !coversIn(r, name) {
					lost = append(lost, name)
				}
			}
		}
		sort.Strings(lost)
		if len(lost) > n {
			n = len(lost)
			why = fmt.Sprintf("does not run %d of the baseline's %ss", n, noun)
		}
	} else if n > 0 {
		why += " (compared by totals: the output does not name every test)"
	}
	return n, lost, why
}

func coversIn(s suite, unit string) bool {
	for _, m := range []map[string]bool{s.passedTests, s.failedTests} {
		for name := range m {
			if strings.HasPrefix(name, unit+"::") || strings.HasPrefix(name, unit+".") || strings.HasPrefix(name, unit+" ") {
				return true
			}
		}
	}
	return false
}
