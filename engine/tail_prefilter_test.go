package engine

import (
	"bufio"
	"bytes"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mayOpenSection must hold for every line errorStart matches (else a
// section is lost), and reject the lines a flood prints (else the regexp
// runs on each of them again).
func TestMayOpenSectionCoversErrorStart(t *testing.T) {
	check := func(l string) {
		t.Helper()
		if errorStart.MatchString(l) && !mayOpenSection([]byte(l)) {
			t.Fatalf("errorStart matches %q but the prefilter rules it out", l)
		}
	}
	// Every line of the fixtures the runners' outputs are.
	for _, root := range []string{"testdata", filepath.Join("..", "parse", "testdata")} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			sc := bufio.NewScanner(bytes.NewReader(b))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				check(stripANSI(sc.Text()))
			}
			return nil
		})
	}
	// One of each alternative, then random joins of the fragments the
	// alternatives are made of.
	opens := []string{"--- FAIL: TestX (0.00s)", "panic: boom", "fatal error: all goroutines are asleep", "error: oops",
		"error[E0308]: mismatched types", "thread 'main' panicked at src/lib.rs:1:1", "Traceback (most recent call last):",
		"==== FAILURES ====", "= ERRORS =", "FAILED tests/a.py::t", "E   assert 1 == 2", "AssertionError: x", "FAIL lib/a.test.js",
		"  ● suite › test", "● x", "\t● y", "not ok 1 - t", "calc.go:12: undefined: x", "a/b.rs:3:4: error: x", "x.py:1: syntax error",
		"./m.c:10:2: expected ';'", "pkg/f.go:7:1: cannot use"}
	for _, l := range opens {
		if !opensSection([]byte(l)) {
			t.Errorf("%q should open a section", l)
		}
		check(l)
	}
	frags := []string{"-", "--- FAIL:", "panic:", "fatal error:", "error", "[E", "0308", "]", ":", " ", "\t", "\f", "\r", ".", "go", "rs",
		"12", "3", "●", "=", "FAILURES", "ERRORS", "E", "   ", "thread '", "' panicked", "x", "FAIL", "ED", "not ok ", "Traceback",
		" (most recent call last)", "AssertionError", "undefined", "cannot", "syntax error", "expected", "é", "\xff", "_", "/"}
	r := rand.New(rand.NewSource(1))
	for range 300000 {
		var b strings.Builder
		for n := 1 + r.Intn(7); n > 0; n-- {
			b.WriteString(frags[r.Intn(len(frags))])
		}
		check(b.String())
	}
	for _, l := range []string{"flood line 12: some test output, nothing to see, ok", "fmt.Println(x)", "parse.go:12: note: x",
		"=== RUN   TestThing", "--- PASS: TestThing (0.00s)", "tests/test_mod.py::test_case PASSED [ 42%]", "   Compiling foo v0.1.0",
		"error_count.go:1: ok", "ok  	calc	0.01s", "thread started", "Error in line 3"} {
		if mayOpenSection([]byte(l)) {
			t.Errorf("the prefilter lets %q through to the regexp", l)
		}
	}
}
