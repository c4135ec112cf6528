package report

import (
	"bytes"
	"strings"
	"testing"
)

func exitCode(n int) *int { return &n }

// Plain go test ./... counts packages while fixes count tests: the row
// says which is which (go-cmp's "5 passed ... fixes 35" read as tests).
func TestTextRowSaysPackageCounts(t *testing.T) {
	fix, base := "fix", "b"
	r := &Report{Command: []string{"go", "test", "./..."}, Mode: "overlay", Winner: &fix, Hypotheses: []*Result{
		{Name: "fix", Status: StatusPassed, ExitCode: exitCode(0), ChangedLines: 2, Diff: "--- a/x\n", Fixed: []string{"TestA", "TestB"},
			Tests: &Tests{Passed: 5, Failed: 0, Unit: "package"}},
		{Name: base, Status: StatusFailed, ExitCode: exitCode(1), Tests: &Tests{Passed: 4, Failed: 1, Unit: "package"}},
	}}
	var b bytes.Buffer
	WriteText(&b, r)
	if !strings.Contains(b.String(), "packages: 5 passed, 0 failed") || !strings.Contains(b.String(), "fixes 2 test(s)") {
		t.Errorf("the row does not say packages and tests:\n%s", b.String())
	}
	// Counts of tests stay as they were.
	r.Hypotheses[0].Tests.Unit, r.Hypotheses[1].Tests.Unit = "", ""
	b.Reset()
	WriteText(&b, r)
	if strings.Contains(b.String(), "packages:") || strings.Contains(b.String(), "test(s)") || !strings.Contains(b.String(), "5 passed, 0 failed") {
		t.Errorf("test counts:\n%s", b.String())
	}
}

// A run with a baseline whose command gave no counts says so, naming it,
// rather than asking for a baseline it has.
func TestLostNotCheckedNamesTheBaselineThatGaveNoCounts(t *testing.T) {
	why := "command not found: pytest"
	r := &Report{Command: []string{"pytest"}, Mode: "overlay", Hypotheses: []*Result{
		{Name: "fix", Status: StatusFailed, ExitCode: exitCode(127), ChangedLines: 1, Diff: "--- a/x\n"},
		{Name: "baseline", Status: StatusFailed, ExitCode: exitCode(127), Reason: &why},
	}}
	var b bytes.Buffer
	WriteText(&b, r)
	want := "lost tests not checked: the baseline baseline gave no test counts (exit 127: command not found: pytest)"
	if !strings.Contains(b.String(), want) || strings.Contains(b.String(), "add --baseline") {
		t.Errorf("want %q:\n%s", want, b.String())
	}
	r.Hypotheses = r.Hypotheses[:1]
	b.Reset()
	WriteText(&b, r)
	if !strings.Contains(b.String(), "no baseline with test counts (add --baseline") {
		t.Errorf("without a baseline:\n%s", b.String())
	}
}

// The tie-break counts a candidate's code lines only (its test files are
// the judge's): a row whose all-lines count is larger than a lower row's
// says what was ranked.
func TestTextRowSaysTheRankedLines(t *testing.T) {
	w := "big"
	r := &Report{Command: []string{"pytest"}, Mode: "overlay", Winner: &w, Hypotheses: []*Result{
		{Name: "big", Status: StatusPassed, ExitCode: exitCode(0), ChangedLines: 6, RankKey: &RankKey{Lines: 2}, Tests: &Tests{Passed: 3}},
		{Name: "small", Status: StatusPassed, ExitCode: exitCode(0), ChangedLines: 2, RankKey: &RankKey{Lines: 2}, Tests: &Tests{Passed: 3}},
	}}
	var b bytes.Buffer
	WriteText(&b, r)
	lines := strings.Split(b.String(), "\n")
	if !strings.Contains(lines[1], "~6 changed line(s) (2 of code, which ranks)") || strings.Contains(lines[2], "of code") {
		t.Errorf("rows:\n%s", b.String())
	}
}

// Every hypothesis failing alike in a subdirectory: the line says the
// command ran there and how to run it at the root, before blaming the
// environment (a pytest run from tests/ that cannot import the project).
func TestSameFailureInASubdirectorySaysWhere(t *testing.T) {
	why := "collection error in test_calc.py: No module named 'calc'"
	r := &Report{Workspace: "/src/proj", Subdir: "tests", Hypotheses: []*Result{
		{Name: "a", Status: StatusFailed, Reason: &why}, {Name: "b", Status: StatusFailed, Reason: &why}}}
	got := SameFailure(r)
	for _, want := range []string{"the command ran in tests/", "cd /src/proj", "-C /src/proj", "install it where the command runs"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in %q", want, got)
		}
	}
	r.Subdir = ""
	if got := SameFailure(r); strings.Contains(got, "ran in") {
		t.Errorf("at the root: %q", got)
	}
}
