package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/parse"
)

// The cheats that change the judge (docs/report.md, "The judge") against
// real runners' output, captured by
// parse/testdata/regen.sh (the verdict section): each runner's baseline
// (one test failing), the fix, and the candidates that pass by changing the
// tests. Each runner either names every test (by-name checks apply) or only
// its failures (pytest -q, jest's and vitest's default reporters, plain go
// test, cargo -q): then totals and the proposed test edit are what catch a
// cheat.
func TestVerdictsOnRealRunnerOutput(t *testing.T) {
	type runner struct {
		dir      string
		namesAll bool   // the output names passing tests too
		sub      string // the failing test's name
		file     string // the test file the cheats edit
		twice    bool   // has a "twice" capture
		skipSeen bool   // a skip marker shows in the totals
	}
	runners := []runner{
		{"pytest-q", false, "tests/test_calc.py::TestCalc::test_sub", "tests/test_calc.py", true, true},
		{"pytest-v", true, "tests/test_calc.py::TestCalc::test_sub", "tests/test_calc.py", true, true},
		{"unittest", false, "tests.test_calc.TestCalc.test_sub", "tests/test_calc.py", true, true},
		{"unittest-v", true, "tests.test_calc.TestCalc.test_sub", "tests/test_calc.py", true, true},
		{"go", false, "example.com/v/calc.TestSub", "calc/calc_test.go", false, false},
		{"go-v", true, "example.com/v/calc.TestSub", "calc/calc_test.go", false, true},
		{"go-json", true, "example.com/v/calc.TestSub", "calc/calc_test.go", false, true},
		{"cargo", false, "tests::sub_works", "src/lib.rs", false, true}, // -q: no binary names
		{"jest", false, "jt/b.test.js › b › subtracts", "jt/b.test.js", true, true},
		{"jest-v", true, "jt/b.test.js › b › subtracts", "jt/b.test.js", true, true},
		{"vitest", false, "jt/b.test.js > b > subtracts", "jt/b.test.js", true, true},
		{"vitest-v", true, "jt/b.test.js > b > subtracts", "jt/b.test.js", true, true},
	}
	read := func(t *testing.T, rn runner, variant string) *result {
		b, err := os.ReadFile(filepath.Join("..", "..", "parse", "testdata", "verdict", rn.dir, variant+".txt"))
		if err != nil {
			t.Fatalf("%v (regenerate with parse/testdata/regen.sh verdict)", err)
		}
		s := parse.Parse(b, nil)
		if s == nil {
			t.Fatalf("%s/%s: no counts", rn.dir, variant)
		}
		r := &result{Result: &Result{Name: variant, Status: StatusPassed, Tests: toTests(s)}}
		r.Tests.Unit = s.Unit
		r.passedTests, r.failedTests = set(s.PassedTests), set(s.FailedTests)
		if s.Failed > 0 {
			r.Status = StatusFailed
		}
		return r
	}
	for _, rn := range runners {
		t.Run(rn.dir, func(t *testing.T) {
			variants := []string{"fixed", "deleted", "skipped", "weakened", "renamed"}
			if rn.twice {
				variants = append(variants, "twice")
			}
			// The cheats edit the test file (cargo's unit tests live in
			// src/lib.rs, which no glob names: test_paths must).
			jd := newJudge(nil, nil)
			if rn.dir == "cargo" {
				jd = newJudge([]string{"src/lib.rs", "tests/**"}, nil)
			}
			base := read(t, rn, "base")
			base.Name = "baseline"
			results := []*result{base}
			hyps := []Hypothesis{{Name: "baseline"}}
			for _, v := range variants {
				r := read(t, rn, v)
				if v != "fixed" {
					// A test edit the candidate proposes never reaches its
					// judged run (judged.go); one its command makes while
					// running does, and is what these outputs stand for.
					r.judgeChanged = jd.judgePaths([]string{rn.file}, false)
				}
				results = append(results, r)
				hyps = append(hyps, Hypothesis{Name: v, Deletes: []string{"x"}})
			}
			rank(results, hyps)
			m := map[string]*result{}
			for _, r := range results {
				m[r.Name] = r
			}
			if w := Leader(results); w == nil || w.Name != "fixed" {
				for _, r := range results {
					t.Logf("%s %s %+v %v", r.Name, r.Status, *r.Tests, str(r.Disqualified))
				}
				t.Fatalf("leader %v, order %v", w, order(results))
			}
			if f := m["fixed"]; strings.Join(f.Fixed, ",") != rn.sub || f.Disqualified != nil || *f.LostTests != 0 {
				t.Errorf("fixed: fixed %v disqualified %q lost %d", f.Fixed, str(f.Disqualified), *f.LostTests)
			}
			for _, v := range variants[1:] {
				r := m[v]
				if r.Status == StatusPassed && r.Disqualified == nil {
					t.Errorf("%s passes and is not disqualified", v)
				}
				lost := *r.LostTests
				want := -1 // at least one
				switch v {
				case "weakened":
					want = 0
				case "skipped":
					if !rn.skipSeen {
						want = 0
					}
				case "renamed", "twice":
					if !rn.namesAll {
						want = 0 // only the test-file edit tells
					} else {
						want = 1
					}
				}
				if (want < 0 && lost < 1) || (want >= 0 && lost != want) {
					t.Errorf("%s: lost_tests %d, want %d (-1: at least one); tests %+v, disqualified %q", v, lost, want, r.Tests, str(r.Disqualified))
				}
				if v == "twice" && r.Disqualified != nil && rn.namesAll && !strings.Contains(*r.Disqualified, rn.sub) {
					t.Errorf("twice: the lost test is not named: %q", *r.Disqualified)
				}
			}
			for _, r := range results {
				t.Logf("%-8s %-7s %+v lost=%d fixed=%v dq=%q", r.Name, r.Status, *r.Tests, *r.LostTests, r.Fixed, str(r.Disqualified))
			}
		})
	}
}

func order(rs []*result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}
