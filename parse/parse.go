// Package parse reads test counts and per-test outcomes from the output of
// test runners. It uses the standard library only and imports nothing of
// shadow's.
package parse

// Summary is what a runner's output says about a run.
type Summary struct {
	Framework   string   // e.g. "go", "cargo", "pytest"; several joined by "+" when a command ran several suites
	Passed      int
	Failed      int
	Skipped     int
	FailedTests []string // names of failing tests where the output names them, in order seen, no duplicates
	PassedTests []string // names of passing tests where the output names them
}
