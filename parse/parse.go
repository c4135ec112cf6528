// Package parse reads test counts and per-test outcomes from the output of
// test runners. It uses the standard library only and imports nothing of
// shadow's.
//
// The runner is detected from the output itself (the command is only a hint:
// real commands are wrapped in make, npm, tox, sh -c). Every runner's reader
// sees every line, ANSI escapes removed, so one command that runs several
// suites is summed and its Framework is their names joined with "+", in the
// order they first printed something recognisable. Output that no reader
// recognises gives nil, never zeros.
//
// Choices made where runners differ (each reader's file says more):
//   - A runner's own summary line wins over counting its per-test lines;
//     per-test lines give the live counts and the names.
//   - go: subtests count, as in -json (gotestsum counts them too); plain
//     `go test` shows only failures, so passed stays 0 there; a package that
//     fails with no failing test counts as one failure named by the package.
//     Names: "importpath.TestName/sub".
//   - cargo: ignored = skipped; doc-test names drop " (line N)".
//     nextest: names "binary-id test-name".
//   - pytest: errors = failed, xfailed = skipped, xpassed = passed. Names:
//     node ids.
//   - unittest: failures, errors and unexpected successes = failed; skipped
//     and expected failures = skipped. Names: "module.Class.test_method".
//   - vitest, bun: names "file > describe > test"; jest: "file › describe ›
//     test"; node: "suite > test"; todo = skipped everywhere; node's
//     cancelled = failed.
//   - XCTest: names "Class.method"; swift-testing: the test's display name.
//   - ctest, meson: test names; meson's expected failures = passed.
//   - A test reported both failed and passed (a teardown error after a pass,
//     a retry) is only in FailedTests.
package parse

// Summary is what a runner's output says about a run.
type Summary struct {
	// Framework is one of "go", "cargo", "nextest", "pytest", "unittest",
	// "vitest", "jest", "bun", "node", "xctest", "swift-testing", "ctest",
	// "meson", "junit"; several joined by "+" when a command ran several
	// suites (e.g. "go+pytest").
	Framework   string
	Passed      int
	Failed      int
	Skipped     int
	FailedTests []string // names of failing tests where the output names them, in order seen, no duplicates
	PassedTests []string // names of passing tests where the output names them
	// Unit is "package" when the counts are of packages, not tests: plain
	// `go test ./...` prints a line per package and names only failing
	// tests, so passed/failed/skipped count ok/FAIL/no-test-files packages.
	// "" means tests.
	Unit string
	// Deselected is how many tests the runner said it left out of this
	// run (pytest's "N deselected"): tests the suite has that did not run.
	Deselected int
	// Suites is each runner's own summary (Suites nil in them) when the
	// command ran several, in the order they first printed: their tests
	// are kept apart, so a comparison of two runs is like with like (one
	// runner naming every test and the other only failures must not look
	// like lost tests). Nil with a single runner.
	Suites []Summary
}
