package parse

import (
	"os"
	"path/filepath"
	"testing"
)

// A command that runs two runners gives each its own suite, with its own
// counts and names; a single runner has no Suites.
func TestSeveralRunnersAreSeveralSuites(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "mixed", "vitest_node_fix.txt"))
	if err != nil {
		t.Fatal(err)
	}
	s := Parse(b, nil)
	if s == nil || s.Framework != "vitest+node" || len(s.Suites) != 2 {
		t.Fatalf("%+v", s)
	}
	v, n := s.Suites[0], s.Suites[1]
	if v.Framework != "vitest" || v.Passed != 7 || len(v.PassedTests) != 0 || n.Framework != "node" || n.Passed != 2 || len(n.PassedTests) != 2 {
		t.Errorf("vitest %+v node %+v", v, n)
	}
	if s.Passed != 9 {
		t.Errorf("total %d", s.Passed)
	}
	one := Parse([]byte("ok  \texample.com/a\t0.01s\n"), nil)
	if one == nil || one.Suites != nil {
		t.Errorf("one runner: %+v", one)
	}
}

// `ok pkg [no tests to run]` (go test -run matching nothing there) is no
// pass; `? pkg [no test files]` neither.
func TestGoPackageWithNoTestRunIsSkipped(t *testing.T) {
	s := Parse([]byte("ok  \texample.com/a\t0.01s [no tests to run]\nok  \texample.com/b\t(cached) [no tests to run]\n?   \texample.com/c\t[no test files]\nok  \texample.com/d\t0.01s\n"), nil)
	if s == nil || s.Unit != "package" || s.Passed != 1 || s.Skipped != 3 || s.Failed != 0 {
		t.Errorf("%+v", s)
	}
}

// pytest's "N deselected" is kept: a run that leaves tests out is not level
// with one that runs them, whatever its passed count.
func TestPytestDeselectedIsCounted(t *testing.T) {
	s := Parse([]byte("........................ [100%]\n===== 24 passed, 1 deselected in 0.05s =====\n"), nil)
	if s == nil || s.Passed != 24 || s.Deselected != 1 {
		t.Errorf("%+v", s)
	}
}
