package report

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
