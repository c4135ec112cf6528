package report

import (
	"fmt"
	"io"
)

// TestsFromInfo is the report's tests_from: the tests written before the
// candidates were seen (--tests-from, the spec's "tests_from";
// docs/report.md), the judge's on every hypothesis.
type TestsFromInfo struct {
	// Source is the directory or patch file (absolute); Kind "dir" or
	// "patch".
	Source string `json:"source"`
	Kind   string `json:"kind"`
	// Files are the workspace paths they write, sorted.
	Files []string `json:"files"`
	// Tests are the tests they add or change, read from the files
	// (FILE::NAME; JavaScript FILE > title), as proposed_tests names them.
	Tests []string `json:"tests"`
}

// TestsFromOutcome is a hypothesis's tests_from: which of those tests
// its run passed and failed (a whole file or package that failed fails
// each of its tests).
type TestsFromOutcome struct {
	Passed []string `json:"passed"`
	Failed []string `json:"failed"`
}

// writeTestsFrom is the text report's line on the tests from before the
// candidates: where from, which tests, and, when a baseline passed every
// one of them, that they reproduce nothing (a reproduction fails on the
// unchanged checkout).
func writeTestsFrom(w io.Writer, r *Report) {
	tf := r.TestsFrom
	if tf == nil {
		return
	}
	what := fmt.Sprintf("%d file(s)", len(tf.Files))
	if len(tf.Tests) > 0 {
		what = ListShort(tf.Tests, 4)
	}
	fmt.Fprintf(w, "tests from before the candidates (%s %s): %s; the judge's, run on every hypothesis\n", tf.Kind, shortPath(tf.Source), what)
	for _, h := range r.Hypotheses {
		if isBaselineRow(h) && h.TestsFrom != nil && len(h.TestsFrom.Failed) == 0 && len(h.TestsFrom.Passed) > 0 {
			fmt.Fprintf(w, "the baseline %s passes every test from before the candidates: they reproduce nothing, and decide only where a candidate breaks them\n", h.Name)
			break
		}
	}
}

// testsFromMark is a row's mark: the tests from before the candidates it
// fails, "" when it fails none (or they were not given).
func testsFromMark(h *Result) string {
	o := h.TestsFrom
	if o == nil || len(o.Failed) == 0 {
		return ""
	}
	return fmt.Sprintf("fails %d of %d test(s) from before the candidates: %s", len(o.Failed), len(o.Failed)+len(o.Passed), ListShort(o.Failed, 3))
}

// isBaselineRow: a hypothesis that changes nothing.
func isBaselineRow(h *Result) bool {
	return len(h.Files) == 0 && len(h.Deleted) == 0
}
