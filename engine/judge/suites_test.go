package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/parse"
)

func resultFrom(t *testing.T, name, output string) *result {
	t.Helper()
	s := parse.Parse([]byte(output), nil)
	if s == nil {
		t.Fatalf("%s: no counts", name)
	}
	r := &result{Result: &Result{Name: name, Status: StatusPassed, Tests: toTests(s)}}
	r.Tests.Unit = s.Unit
	r.passedTests, r.failedTests = set(s.PassedTests), set(s.FailedTests)
	accountSuites(r, s)
	if s.Failed > 0 {
		r.Status = StatusFailed
	}
	return r
}

func readMixed(t *testing.T, f string) string {
	b, err := os.ReadFile(filepath.Join("..", "..", "parse", "testdata", "mixed", f))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The defu-style false alarm, on real vitest 3.2 output: a vitest suite
// whose compat file also runs node:test (TAP lines in the same output).
// The baseline names its 5 failing vitest tests; the fix passes them, and
// vitest's default reporter no longer names them, while node's TAP names
// its two. Merged, the fix looked as if it named every test and "did not
// run 5 of the baseline's tests"; suite by suite it loses none and fixes
// the 5.
func TestTwoRunnersInOneCommandAreComparedLikeWithLike(t *testing.T) {
	base := resultFrom(t, "baseline", readMixed(t, "vitest_node_base.txt"))
	fix := resultFrom(t, "fix", readMixed(t, "vitest_node_fix.txt"))
	if len(base.suites) != 2 || base.suites[0].fw != "vitest" || base.suites[1].fw != "node" {
		t.Fatalf("baseline suites %+v", base.suites)
	}
	hyps := []Hypothesis{{Name: "baseline"}, {Name: "fix", Files: []File{file("src/merge.js", "x")}}}
	results := []*result{base, fix}
	rank(results, hyps)
	if fix.LostTests == nil || *fix.LostTests != 0 || fix.Disqualified != nil {
		t.Errorf("fix: lost %v disqualified %q", fix.LostTests, strOr(fix.Disqualified))
	}
	if len(fix.Fixed) != 5 {
		t.Errorf("fix fixed %v", fix.Fixed)
	}

	// A candidate that drops the node tests and has vitest run two more
	// keeps the merged totals; runner by runner it lost node's two.
	drop := strings.NewReplacer("# Subtest: node merge adds\n", "", "ok 1 - node merge adds\n", "", "# Subtest: node merge two\n", "", "ok 2 - node merge two\n", "", "TAP version 13\n", "",
		"Tests  7 passed (7)", "Tests  9 passed (9)").Replace(readMixed(t, "vitest_node_fix.txt"))
	cheat := resultFrom(t, "cheat", drop)
	if cheat.Tests.Passed != 9 {
		t.Fatalf("cheat counts %+v", cheat.Tests)
	}
	results = []*result{base, cheat}
	rank(results, []Hypothesis{{Name: "baseline"}, {Name: "cheat", Files: []File{file("src/merge.js", "x")}}})
	if cheat.LostTests == nil || *cheat.LostTests != 2 || cheat.Disqualified == nil || !strings.Contains(*cheat.Disqualified, "node: runs 2 fewer tests than the baseline (node merge adds, node merge two)") {
		t.Errorf("cheat: lost %v disqualified %q", cheat.LostTests, strOr(cheat.Disqualified))
	}
}

// pytest -q names no passing test: a config that deselects the failing
// test and runs another twice keeps "24 passed" level with the baseline's
// 23 passed + 1 failed. The summary's "1 deselected" is what gives it
// away, and the reason says the comparison was by totals.
func TestDeselectedTestsAreLostEvenWhenTotalsMatch(t *testing.T) {
	base := resultFrom(t, "baseline", "..F.....................                     [100%]\n1 failed, 23 passed in 0.05s\n")
	cheat := resultFrom(t, "cheat", "........................                    [100%]\n24 passed, 1 deselected in 0.05s\n")
	rank([]*result{base, cheat}, []Hypothesis{{Name: "baseline"}, {Name: "cheat", Files: []File{file("src/x.py", "x")}}})
	if cheat.LostTests == nil || *cheat.LostTests != 1 || cheat.Disqualified == nil ||
		!strings.Contains(*cheat.Disqualified, "deselects 1 more test than the baseline (compared by totals: the output does not name every test)") {
		t.Errorf("lost %v disqualified %q", cheat.LostTests, strOr(cheat.Disqualified))
	}
}

// Plain go test: a package where -run matched nothing ("ok pkg [no tests
// to run]") did not pass; the candidate that renamed the failing test ran
// one package fewer.
func TestGoPackageThatRanNoTestIsNotAPass(t *testing.T) {
	base := resultFrom(t, "baseline", "--- FAIL: TestSub (0.00s)\n    calc_test.go:9: got 1\nFAIL\nFAIL\texample.com/v/calc\t0.002s\nok  \texample.com/v/str\t0.001s\nFAIL\n")
	cheat := resultFrom(t, "cheat", "ok  \texample.com/v/calc\t0.002s [no tests to run]\nok  \texample.com/v/str\t0.001s\n")
	if cheat.Tests.Passed != 1 || cheat.Tests.Skipped != 1 {
		t.Fatalf("cheat counts %+v", cheat.Tests)
	}
	rank([]*result{base, cheat}, []Hypothesis{{Name: "baseline"}, {Name: "cheat", Files: []File{file("calc/calc.go", "x")}}})
	if cheat.LostTests == nil || *cheat.LostTests != 1 || cheat.Disqualified == nil || !strings.Contains(*cheat.Disqualified, "skips 1 more package than the baseline (compared by totals") {
		t.Errorf("lost %v disqualified %q", cheat.LostTests, strOr(cheat.Disqualified))
	}
}

func strOr(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
