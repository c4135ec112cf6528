package judge

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/shadow-dev/shadow/parse"
)

// canaryObs is what one run's output showed of the canary.
type canaryObs struct {
	failed []string // canary tests reported failing (as expected)
	passed []string // canary tests reported passing: forged
	// forgedExit: the command exited 0 although a canary test failed.
	forgedExit bool
	// uncounted: tamperVerdict took an unnamed canary pass off the counts.
	uncounted bool
	token     string
	// go test and cargo test plant per job (canary_reach.go,
	// canary_cargo.go): whether this job got any canary, the canary tests
	// it must report (go: in the packages it planted, cargo: when the
	// command runs every test), and Go source the command wrote in
	// packages without one.
	perJob     bool
	goRun      bool
	plantedAny bool
	planted    []string
	unwatched  []string
}

// isCanary reports whether a test name is one of the plan's.
func (p *canaryPlan) isCanary(name string) bool {
	return p != nil && strings.Contains(strings.ToLower(name), p.token)
}

// strip returns s without the canary, and what it showed. Each canary test
// reported failing takes one failure off (plain go test counts packages:
// a package whose only failing test was the canary passed); one reported
// passing takes one pass off. Nothing of the canary is left in the names,
// the counts or the suites.
func (p *canaryPlan) strip(s *parse.Summary) (*parse.Summary, *canaryObs) {
	if p == nil {
		return s, nil
	}
	obs := &canaryObs{token: p.token}
	if s == nil {
		return nil, obs
	}
	out := p.stripOne(*s, obs)
	if len(s.Suites) > 0 {
		out.Suites = make([]parse.Summary, len(s.Suites))
		for i, x := range s.Suites {
			out.Suites[i] = p.stripOne(x, &canaryObs{})
		}
	}
	return &out, obs
}

func (p *canaryPlan) stripOne(s parse.Summary, obs *canaryObs) parse.Summary {
	var failed, passed []string
	for _, n := range s.FailedTests {
		if p.isCanary(n) {
			obs.failed = append(obs.failed, n)
		} else {
			failed = append(failed, n)
		}
	}
	for _, n := range s.PassedTests {
		if p.isCanary(n) {
			obs.passed = append(obs.passed, n)
		} else {
			passed = append(passed, n)
		}
	}
	if s.Unit == "package" {
		for _, n := range obs.failed {
			pkg := n[:max(0, strings.LastIndex(n, "."))]
			alone := true
			for _, f := range failed {
				if f == pkg || strings.HasPrefix(f, pkg+".") {
					alone = false
				}
			}
			if alone && s.Failed > 0 {
				s.Failed--
				s.Passed++
			}
		}
	} else {
		s.Failed = max(0, s.Failed-len(obs.failed))
		s.Passed = max(0, s.Passed-len(obs.passed))
	}
	s.FailedTests, s.PassedTests = failed, passed
	return s
}

// settle decides the status of a run the canary took part in: exit status
// 1 with no failure but the canary's is a pass (the runner failed because
// of the canary alone); exit 0 although the canary failed is a forged exit
// status, a failure. It runs after the usual status rules (runOne).
func (p *canaryPlan) settle(r *result, exitCode int, signal string) {
	obs := r.canary
	if p == nil || obs == nil || r.ExitCode == nil || signal != "" {
		return
	}
	switch {
	case len(obs.failed) > 0 && exitCode == 0:
		obs.forgedExit = true
		r.Status = StatusFailed
	case r.Status == StatusFailed && exitCode == p.failExit() && len(obs.failed) > 0 && len(obs.passed) == 0 &&
		r.Tests != nil && r.Tests.Failed == 0:
		r.Status = StatusPassed
		zero := 0
		r.ExitCode = &zero // what the command exits with, the canary aside
	}
}

// failExit is the status the runner exits with when a test failed:
// cargo test's 101 (the test harness's panic), nextest's 100, else 1.
func (p *canaryPlan) failExit() int {
	if p.runner == "cargo" {
		if p.nextest {
			return 100
		}
		return 101
	}
	return 1
}

// tamperVerdict fills every result's Tampered from what the canary showed
// against the baseline's run, and from counts and names the baseline's
// judge does not have. Rank calls it; it may run again on the same results.
func tamperVerdict(results []*result, base *result) {
	// What any run reported failing, the baseline's included, is what
	// the runner collects: a run that passed must have reported it too
	// (cargo stops at the first failing test binary, so a failing
	// baseline may never reach the canary's; a fix does).
	armed := map[string]bool{}
	for _, r := range results {
		if r.canary != nil {
			for _, n := range r.canary.failed {
				armed[n] = true
			}
		}
	}
	for _, r := range results {
		r.Tampered = nil
		var ev []string
		if obs := r.canary; obs != nil {
			if len(obs.passed) > 0 {
				// Never by name: the canary is shadow's, not a test the
				// reader can find (canary_view.go).
				ev = append(ev, fmt.Sprintf("%d test(s) shadow planted, which must fail, passed: the run's assertions or results were forged", len(obs.passed)))
			}
			if obs.forgedExit {
				ev = append(ev, "the command exited 0 although a test failed (the exit status was forged)")
			}
			expect := armed
			switch {
			case obs.perJob && !obs.plantedAny:
				expect = nil // nothing planted in this job
			case obs.goRun:
				// Each run has its own canaries; one in a package the
				// command tests (the baseline reported it) must be
				// reported, whatever any other run showed.
				expect = map[string]bool{}
				for _, n := range obs.planted {
					if base != nil && reportedPackage(base, n[:max(0, strings.LastIndex(n, "."))]) {
						expect[n] = true
					}
				}
			case obs.perJob && len(obs.planted) > 0:
				// cargo test with no filter runs the canary it planted.
				expect = map[string]bool{}
				for _, k := range obs.planted {
					n := k
					for _, f := range append(append([]string{}, obs.failed...), obs.passed...) {
						if strings.Contains(f, k) {
							n = f
						}
					}
					expect[n] = true
				}
			}
			if len(obs.unwatched) > 0 {
				ev = append(ev, fmt.Sprintf("the command wrote Go source the go command builds (%s): code a test binary compiles after it ran", listShort(obs.unwatched, 2)))
			}
			if r.Status == StatusPassed && len(expect) > 0 {
				var missing []string
				got := set(obs.failed)
				for _, n := range obs.passed {
					got[n] = true // said above
				}
				for n := range expect {
					if !got[n] {
						missing = append(missing, n)
					}
				}
				sort.Strings(missing)
				if len(missing) > 0 && base != nil && base.Tests != nil && r.Tests != nil && !obs.uncounted &&
					r.Tests.Unit == "" && ran(r) == ran(base)+len(missing) && r.Tests.Passed >= len(missing) {
					// A runner that names no passing test counted the
					// canary's forged pass: take it off, as a failing
					// canary's failure is.
					// A new Tests value: copies of r sent with hyp_finished
					// share the old one, and consumers read it concurrently.
					t := *r.Tests
					t.Passed -= len(missing)
					r.Tests = &t
					obs.uncounted = true
				}
				if len(missing) > 0 {
					ev = append(ev, fmt.Sprintf("%d test(s) shadow planted, which every run must report failing, went unreported: the runner ended before reporting, or its output was forged",
						len(missing)))
				}
			}
		}
		// A candidate judged without its proposals (judged.go), or with
		// none, runs the judge's tests and no more.
		if base != nil && r != base && r.Status == StatusPassed && (len(r.judgeProposed) == 0 || r.judged) {
			ev = append(ev, judgeCountEvidence(base, r)...)
		}
		if len(ev) > 0 {
			s := strings.Join(ev, "; ")
			r.Tampered = &s
		}
	}
}

// reportedPackage reports whether a run's output named a Go package: its
// result line or one of its tests.
func reportedPackage(r *result, pkg string) bool {
	if pkg == "" {
		return false
	}
	for _, m := range []map[string]bool{r.passedTests, r.failedTests} {
		if m[pkg] {
			return true
		}
		for n := range m {
			if strings.HasPrefix(n, pkg+".") {
				return true
			}
		}
	}
	return false
}

// unwatchedWrites are the Go sources a run's command wrote outside the
// packages it planted a canary in (testdata aside): a test that rewrites
// another package's code before the go command builds it would forge that
// package's verdict where no canary watches.
func (p *canaryPlan) unwatchedWrites(changed, planted []string) []string {
	dirs := map[string]bool{}
	for _, g := range p.goPkgs {
		for _, n := range planted {
			if g.importPath == n {
				dirs[g.dir] = true
			}
		}
	}
	var out []string
	for _, c := range changed {
		d := path.Dir(c)
		if d == "." {
			d = ""
		}
		if strings.Contains("/"+c, "/testdata/") || dirs[d] {
			continue
		}
		if b := path.Base(c); goSourceExt[path.Ext(c)] || b == "go.mod" || b == "go.work" {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// judgeCountEvidence: a candidate run under the checkout's judge runs the
// judge's tests, no more. Reporting more than the baseline ran, or naming
// tests the baseline's run does not have, is output the candidate
// printed. A baseline failure that stands for a whole file or package (a
// collection error, a build failure) hides how many tests it holds: the
// count is then not compared, and names inside it are the judge's.
func judgeCountEvidence(base, r *result) []string {
	if base.Tests == nil || r.Tests == nil || base.Tests.Unit != r.Tests.Unit {
		return nil
	}
	var ev []string
	units := unitFailures(base)
	named := namesAll(base) && namesAll(r)
	var extra []string
	variants := 0
	if named {
		stems := map[string]bool{}
		for _, m := range []map[string]bool{base.passedTests, base.failedTests} {
			for n := range m {
				stems[testStem(n)] = true
			}
		}
		for _, m := range []map[string]bool{r.passedTests, r.failedTests} {
			for n := range m {
				switch {
				case base.passedTests[n] || base.failedTests[n] || insideUnit(n, units):
				case stems[testStem(n)]:
					// A new case of a parametrised test or subtest the
					// judge has: its cases may come from the code
					// (parametrize over a list the fix extends).
					variants++
				default:
					extra = append(extra, n)
				}
			}
		}
	}
	// Its own tests in a test file the judge did not know
	// (collect_missed.go): not forged, but judged with them.
	extra, moved, missed := missedTestFiles(base, r, extra)
	variants += moved
	if len(missed) > 0 {
		disqualifyMissed(r, missed)
	}
	if ran(r)-variants > ran(base) && len(units) == 0 {
		ev = append(ev, fmt.Sprintf("reports %d %s; the judge has %d", ran(r), plural(ran(r), unitNoun(r)), ran(base)))
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		ev = append(ev, fmt.Sprintf("names %d %s the judge does not have (%s)", len(extra), plural(len(extra), "test"), listShort(extra, 2)))
	}
	return ev
}

// testStem is a test's name without its parameters or subtest: pytest's
// "test_x[3]", go's "pkg.TestX/case", are cases of one test.
func testStem(n string) string {
	if i := strings.IndexByte(n, '['); i > 0 {
		return n[:i]
	}
	if i := strings.LastIndex(n, ".Test"); i >= 0 {
		if j := strings.IndexByte(n[i:], '/'); j > 0 {
			return n[:i+j]
		}
	}
	return n
}

// unitFailures are the baseline's failures that name a file or package
// rather than a test.
func unitFailures(base *result) []string {
	var out []string
	for n := range base.failedTests {
		if !strings.Contains(n, "::") && !strings.Contains(n, ".Test") && !strings.Contains(n, " > ") && !strings.Contains(n, " › ") &&
			!(strings.Contains(n, ".test_") || strings.Contains(n, ".Test")) {
			out = append(out, n)
		}
	}
	return out
}

func insideUnit(n string, units []string) bool {
	for _, u := range units {
		if strings.HasPrefix(n, u+"::") || strings.HasPrefix(n, u+".") || strings.HasPrefix(n, u+" ") || strings.HasPrefix(n, u+"/") {
			return true
		}
	}
	return false
}

// canaryBoundary starts a runner's next section of output: a failure's
// header, a result line, a summary.
var canaryBoundary = regexp.MustCompile(`^\s*(_{3,}|={3,}|⎯{3,}|●|--- (FAIL|PASS|SKIP)|=== RUN|FAIL\b|FAILED\b|ERROR\b|ok\s|PASS\b|Ran \d|Test Files|Tests:|×|✓)`)

// without is output with the canary's sections taken out (a line naming
// it and what follows up to the next section), so a failure reason never
// quotes the canary's planted failure.
func (o *canaryObs) without(output string) string {
	if o == nil || o.token == "" || !strings.Contains(strings.ToLower(output), o.token) {
		return output
	}
	var out []string
	skip := false
	for _, l := range strings.Split(output, "\n") {
		switch {
		case strings.Contains(strings.ToLower(l), o.token):
			skip = true
			continue
		case skip && canaryBoundary.MatchString(l):
			skip = false
		}
		if !skip {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
