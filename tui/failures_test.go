package tui

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// failureCorpus has a line for every alternative of failureLine, with and
// without colour, and ordinary lines.
var failureCorpus = []string{
	"FAILED tests/test_calc.py::test_div - ZeroDivisionError: division by zero",
	"ERROR tests/test_db.py - ImportError",
	"E       assert 3 == 5",
	"--- FAIL: TestAdd (0.00s)",
	"    calc_test.go:12: add(2, 3) = 1",
	"panic: runtime error: index out of range [3] with length 3",
	"  ● calc › adds",
	"   × adds 1 + 2",
	" ✗ subtracts",
	" ✕ multiplies (3 ms)",
	" FAIL  src/calc.test.ts > add",
	"    Expected: 5",
	"    Received value: 1",
	"test tests::adds ... FAILED",
	"thread 'tests::adds' panicked at src/lib.rs:10:5:",
	"  assertion `left == right` failed",
	"ZeroDivisionError: division by zero",
	"java.lang.IllegalStateException: boom",
	"TypeError",
	"error[E0308]: mismatched types",
	"error: could not compile `calc`",
	"calc.c:3:10: error: expected ';'",
	"AssertionError",
	"\x1b[31mFAILED\x1b[0m tests/test_calc.py::test_div",
	"\x1b[1m\x1b[31mE       assert 3 == 5\x1b[0m",
	"\x1b[31m--- FA\x1b[0mIL: TestAdd",
	"burst 3 line 999: some test output, ok",
	"ok  \tgithub.com/x/calc\t0.01s",
	"PASS",
	"tests/test_calc.py ....F.                                     [100%]",
	"E  x",
	"Errors are fine here",
	"no errors: 0",
	"",
}

// mayBeFailure must never say no to a line failureLine matches: on the
// corpus, on every recorded screen of the goldens, and on lines spliced
// from pieces of both.
func TestFailurePrefilterNeverHidesAMatch(t *testing.T) {
	lines := append([]string(nil), failureCorpus...)
	goldens, _ := filepath.Glob(filepath.Join("testdata", "*.golden"))
	for _, g := range goldens {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(b), "\n")...)
	}
	r := rand.New(rand.NewPCG(1, 2))
	n := len(lines)
	for range 20000 {
		a, b := lines[r.IntN(n)], lines[r.IntN(n)]
		i, j := r.IntN(len(a)+1), r.IntN(len(b)+1)
		lines = append(lines, a[i:]+b[:j], strings.TrimSpace(a[i:]), "  "+b[j:])
	}
	matched := 0
	for _, l := range lines {
		want := failureLine.MatchString(stripped(l))
		if want {
			matched++
		}
		if got := isFailureLine(l); got != want {
			t.Errorf("isFailureLine(%q) = %v, the regexp alone says %v", l, got, want)
		}
	}
	if matched < 25 {
		t.Fatalf("only %d lines match failureLine: the corpus no longer covers its alternatives", matched)
	}
}

// BenchmarkFailureLineOrdinary is the cost of classifying a line of
// ordinary output, as each new line drawn in a column under a flood.
func BenchmarkFailureLineOrdinary(b *testing.B) {
	for b.Loop() {
		isFailureLine("burst 3 line 999: some test output, ok")
	}
}
