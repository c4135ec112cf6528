package judge

import (
	"fmt"
	"sort"
	"strings"
)

// The verdict fields of docs/report.md, measured against the baseline: which
// tests a candidate fixed or broke, which of the baseline's tests it lost,
// and whether it may win at all.

// ran is how many tests (or packages) a result ran to an outcome.
func ran(r *result) int {
	if r.Tests == nil {
		return 0
	}
	return r.Tests.Passed + r.Tests.Failed
}

// namesAll reports whether the output named every test that ran, passing
// ones included (pytest -v, go test -v/-json, cargo): per-test comparisons
// can then be made by name. pytest -q and jest's default reporter name only
// failures.
func namesAll(r *result) bool {
	return r.Tests != nil && r.Tests.Unit == "" && (r.Tests.Passed == 0 || len(r.passedTests) > 0) && everySuiteNamesAll(r)
}

// namesFailures reports whether every failure the counts show is named.
func namesFailures(r *result) bool {
	return r.Tests != nil && (r.Tests.Failed == 0 || len(r.failedTests) > 0)
}

// lostTests counts the baseline's tests r did not run or newly skipped: by
// totals (fewer run, more skipped), and by name where both outputs name
// every test (a test renamed, or replaced by a second copy of another,
// leaves the totals alone). The names are those known lost.
func lostTests(base, r *result) (n int, lost []string, why string) {
	if r.Tests == nil {
		n = ran(base)
		for _, m := range []map[string]bool{base.passedTests, base.failedTests} {
			lost = append(lost, sortedKeys(m)...)
		}
		sort.Strings(lost)
		return n, lost, "no test counts"
	}
	// Runner by runner, like with like (suites.go).
	return lostBySuite(base, r)
}

// covers reports whether r ran tests inside what the baseline named as one
// unit: a collection error names its file ("tests/test_x.py"), a build
// failure its package; once fixed, the file's or package's tests run by
// their own names, and the unit is not lost.
func covers(r *result, unit string) bool {
	for _, m := range []map[string]bool{r.passedTests, r.failedTests} {
		for name := range m {
			if strings.HasPrefix(name, unit+"::") || strings.HasPrefix(name, unit+".") || strings.HasPrefix(name, unit+" ") {
				return true
			}
		}
	}
	return false
}

func unitNoun(r *result) string {
	if r.Tests != nil && r.Tests.Unit == "package" {
		return "package"
	}
	return "test"
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// fixedBroken compares r with the baseline. nil means the output cannot
// tell (no counts; a runner that names only failures and a candidate that
// ran fewer tests than the baseline); tests either of them saw flip across
// --confirm reruns are left out.
func fixedBroken(base, r *result, flaky map[string]bool) (fixed, broken []string) {
	if base == nil || base.Tests == nil || r.Tests == nil || !namesFailures(base) || !namesFailures(r) {
		return nil, nil
	}
	fixed, broken = []string{}, []string{}
	if r == base {
		return fixed, broken
	}
	both := namesAll(base) && namesAll(r)
	for _, n := range sortedKeys(base.failedTests) {
		if flaky[n] || r.failedTests[n] {
			continue
		}
		switch {
		case r.passedTests[n]:
			fixed = append(fixed, n)
		case both:
			// Named everything and not this one: not run, so not fixed.
		case ran(r) >= ran(base):
			// A runner naming only failures: it ran at least as many
			// tests and does not name this one failing (docs/report.md).
			fixed = append(fixed, n)
		default:
			return nil, brokenOf(base, r, flaky, both)
		}
	}
	return fixed, brokenOf(base, r, flaky, both)
}

func brokenOf(base, r *result, flaky map[string]bool, both bool) []string {
	broken := []string{}
	for _, n := range sortedKeys(r.failedTests) {
		if flaky[n] || base.failedTests[n] {
			continue
		}
		if both && !base.passedTests[n] {
			continue // a test the baseline did not have: new, not broken
		}
		broken = append(broken, n)
	}
	return broken
}

// disqualify returns why a passing r may not win, or nil.
func disqualify(r *result, lostWhy string, lost []string, anyRan bool) *string {
	var parts []string
	if r.Tests != nil && ran(r) == 0 && anyRan {
		parts = append(parts, "runs no tests")
	}
	// The judge files it proposes are not what it was judged by (its
	// judged run held only its code, judged.go): they disqualify nothing.
	// Outside a judged run (allow_test_edits) nothing disqualifies either.
	if rt := without(r.EditsTests, r.judgeProposed); len(rt) > 0 {
		parts = append(parts, "its command changed "+listShort(rt, 3)+" during the run")
	}
	if r.LostTests != nil && *r.LostTests > 0 {
		s := lostWhy
		if len(lost) > 0 {
			s += " (" + listShort(lost, 3) + ")"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return nil
	}
	s := strings.Join(parts, "; ")
	return &s
}

func without(a, b []string) []string {
	drop := map[string]bool{}
	for _, s := range b {
		drop[s] = true
	}
	var out []string
	for _, s := range a {
		if !drop[s] {
			out = append(out, s)
		}
	}
	return out
}

// outcomeKey is what two passing candidates must share to tie: the same
// per-test outcomes where the output names tests, the same counts where it
// does not.
func outcomeKey(r *result) string {
	if r.Tests == nil {
		return "?"
	}
	k := fmt.Sprintf("%d/%d/%d/%s", r.Tests.Passed, r.Tests.Failed, r.Tests.Skipped, r.Tests.Unit)
	if namesAll(r) {
		k += "|" + strings.Join(sortedKeys(r.passedTests), "\x00")
	}
	k += "|" + strings.Join(sortedKeys(r.failedTests), "\x00")
	// Reproductions that tell two candidates apart break their tie.
	if r.Cross != nil {
		for _, f := range r.Cross.Failed {
			k += "|" + f.From + "\x00" + f.Test
		}
	}
	return k
}

// fillTies lists, for each passing result, the other passing results with
// the same outcomes, in rank order.
func fillTies(results []*result) {
	groups := map[string][]string{}
	for _, r := range results {
		if r.Status == StatusPassed {
			k := outcomeKey(r)
			groups[k] = append(groups[k], r.Name)
		}
	}
	for _, r := range results {
		r.TiesWith = []string{}
		if r.Status != StatusPassed {
			continue
		}
		for _, n := range groups[outcomeKey(r)] {
			if n != r.Name {
				r.TiesWith = append(r.TiesWith, n)
			}
		}
	}
}

// flakyOf names the tests whose outcome changed across a result's runs:
// named failing in some run that had counts and not in another.
func flakyOf(attempts []attempt) []string {
	if len(attempts) < 2 {
		return nil
	}
	inAll, inAny := map[string]int{}, map[string]bool{}
	counted := 0
	for _, a := range attempts {
		if !a.counted {
			continue
		}
		counted++
		for n := range a.failed {
			inAll[n]++
			inAny[n] = true
		}
	}
	out := []string{}
	for n := range inAny {
		if inAll[n] < counted {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// attempt is what one run of a hypothesis showed, for flakiness.
type attempt struct {
	passed  bool
	counted bool // the run had test counts
	failed  map[string]bool
}
