package tui

import (
	"regexp"
	"strings"
)

// A column is ~26 cells wide: the first 26 characters of each output line
// ("FAILED tests/test_calc.…") say nothing. What a reader needs is which
// test failed and why, so the lines that name a failure are picked out
// (keyLines), their paths cut to the file name and their runner padding
// squeezed (shortenLine), and then wrapped rather than cut.

// failureLine matches the lines of the common runners that name a failed
// test or carry its assertion or exception.
var failureLine = regexp.MustCompile(`^(?:` +
	`(?:FAILED|ERROR) \S` + // pytest short summary
	`|E {2,}\S` + // pytest assertion detail
	`|--- FAIL: ` + // go test
	`|\s+\S+_test\.go:\d+: ` + // go test t.Errorf
	`|panic: ` + // go
	`|\s*● ` + // jest
	`|\s*(?:×|✗|✕) ` + // vitest, others
	`|\s*FAIL\s+\S+\.(?:js|ts|jsx|tsx|mjs|cjs)\b` + // jest / vitest file lines
	`|\s*(?:Expected|Received)(?: value)?: ` + // jest
	`|test \S+ \.\.\. FAILED` + // cargo test
	`|thread '.*' panicked at ` + // rust
	`|\s*assertion .*failed` + // rust assert_eq
	`|(?:\w+\.)*\w*(?:Error|Exception)(?:: |$)` + // Python / JS / Java exceptions
	`|error(?:\[E\d+\])?: ` + // rustc, many compilers
	`|\S+:\d+:\d+: error: ` + // gcc/clang/go vet
	`|AssertionError` +
	`)`)

// errorSection matches the line that starts the failure details of a
// run's output, where the full-output view opens.
var errorSection = regexp.MustCompile(`^(?:` +
	`=+ (?:FAILURES|ERRORS) =+$` + // pytest
	`|--- FAIL: ` + // go test
	`|panic: ` +
	`|Traceback \(most recent call last\):` +
	`|\s*● ` + // jest
	`|failures:$` + // cargo test
	`|thread '.*' panicked at ` +
	`|error(?:\[E\d+\])?: ` +
	`|\S+:\d+:\d+: error: ` +
	`|FAIL\b` +
	`)`)

// failureWords holds, for every alternative of failureLine, a literal
// that any line it matches contains (case as in the pattern). A line
// holding none cannot match, and under a flood of ordinary output that is
// nearly every line: the substring scans cost a fraction of running the
// backtracking regexp on each line drawn.
var failureWords = []string{
	"FAIL",      // FAILED, --- FAIL:, FAIL file.js, ... FAILED
	"ERROR",     // pytest ERROR
	"E  ",       // pytest assertion detail (at the start)
	"_test.go:", // go test t.Errorf
	"panic",     // panic:, panicked at
	"●", "×", "✗", "✕",
	"Expected", "Received",
	"assertion",
	"Error", "Exception", // exceptions, AssertionError
	"error", // error:, error[E0308]:, file:1:2: error:
}

// mayBeFailure is false when l (stripped) holds none of failureWords.
func mayBeFailure(l string) bool {
	for _, w := range failureWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// isFailureLine reports whether a (sanitized) line names a failure.
func isFailureLine(l string) bool {
	l = strippedFast(l)
	return mayBeFailure(l) && failureLine.MatchString(l)
}

// strippedFast is stripped(l), without the parser's work and copy for the
// common line of printable ASCII, which holds no escape sequence.
func strippedFast(l string) string {
	for i := 0; i < len(l); i++ {
		if c := l[i]; c < 0x20 || c > 0x7e {
			return stripped(l)
		}
	}
	return l
}

// isErrorSection reports whether a line starts the failure details.
func isErrorSection(l string) bool { return errorSection.MatchString(l) }

// dirPrefix is a run of directories before a file name: "tests/unit/",
// "/home/u/src/", "./".
var dirPrefix = regexp.MustCompile(`(?:[\w.~@+-]*/)+([\w.@+-]+)`)

// padding is the runners' alignment: "E       assert", "FAIL\tpkg".
var padding = regexp.MustCompile(`\s{2,}|\t`)

// shortenLine cuts every path in a line to its file name and squeezes the
// runner's alignment, keeping what names the test and the message:
// "FAILED tests/test_calc.py::test_div - ZeroDivisionError: division by
// zero" becomes "test_calc.py::test_div - ZeroDivisionError: division by
// zero".
func shortenLine(l string) string {
	l = stripped(l)
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "FAILED ") // the column already says failed
	l = dirPrefix.ReplaceAllString(l, "$1")
	return padding.ReplaceAllString(l, " ")
}

// keyLines picks, from a hypothesis's last output lines, the ones that
// name a failure, shortened and without repeats, oldest first; at most
// max of them (the newest).
func keyLines(lines []string, max int) []string {
	return keyLinesOf(lines, nil, max)
}

// keyLinesOf is keyLines with the lines' classification known (fail[i]
// for lines[i]; nil: classify here).
func keyLinesOf(lines []string, fail []bool, max int) []string {
	var seen map[string]bool
	var out []string
	for i, l := range lines {
		if fail != nil && !fail[i] || fail == nil && !isFailureLine(l) {
			continue
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		s := shortenLine(l)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	if len(out) > max {
		out = out[len(out)-max:]
	}
	return out
}
