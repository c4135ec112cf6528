package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Real runners' output with the canary planted (token "kabcdefg", as
// canary.go names it for each runner), read through the view: nothing of
// the canary is left, and the summary lines say what shadow counts.
func TestCanaryViewHidesTheCanaryAndRewritesSummaries(t *testing.T) {
	cases := []struct {
		file, runner string
		want, never  []string
	}{
		{"go_plain.txt", "go", []string{"ok  \tex/p\t", "ok  \tex/q\t"}, []string{"FAIL"}},
		{"go_verbose.txt", "go", []string{"--- PASS: TestAdd", "PASS\nok  \tex/p\t"}, []string{"FAIL"}},
		{"go_json.txt", "go", []string{`"Action":"pass","Package":"ex/p","Elapsed"`, `ok  \tex/p`}, []string{`"Action":"fail"`, `FAIL`}},
		{"pytest.txt", "pytest", []string{"collected 3 items", "FAILED tests/test_a.py::test_two", "= 1 failed, 2 passed in", "=== FAILURES ===", "___ test_two ___"}, nil},
		{"pytest_q.txt", "pytest", []string{"..F                                                                     [100%]", "FAILED tests/test_a.py::test_two", "\n1 failed, 2 passed in"}, nil},
		{"pytest_q_canary_only.txt", "pytest", []string{".                                                                       [100%]", "\n1 passed in"}, []string{"FAIL", "failed", "short test"}},
		{"pytest_v.txt", "pytest", []string{"collected 3 items", "1 failed, 2 passed in"}, nil},
		{"pytest_canary_only.txt", "pytest", []string{"collected 1 item\n", "= 1 passed in"}, []string{"FAILURES", "short test summary", "failed"}},
		{"unittest.txt", "unittest", []string{".\n", "Ran 1 test in", "\nOK"}, []string{"FAIL", "F\n", "======"}},
		{"unittest_v.txt", "unittest", []string{"test_x (test_a.TestC.test_x) ... ok", "Ran 1 test in", "\nOK"}, []string{"FAIL"}},
		{"unittest_canary_only.txt", "unittest", []string{"Ran 0 tests", "\nOK"}, []string{"FAIL"}},
		{"vitest3.txt", "vitest", []string{"✓ m.test.js (3 tests)", "Test Files  2 passed (2)", "Tests  4 passed (4)"}, []string{"failed", "FAIL", "Failed Tests", "⎯⎯[", "math > adds"}},
		{"vitest5_tree.txt", "vitest", []string{"✓ m.test.js (3 tests)", "✓ n.test.js (1 test)"}, []string{"math (2)", "failed", "Failed Tests"}},
		{"jest.txt", "jest", []string{"PASS ./a.test.js", "FAIL ./b.test.js", "● real", "Test Suites: 1 failed, 1 passed, 2 total", "Tests:       1 failed, 1 passed, 2 total"}, nil},
		{"jest_v.txt", "jest", []string{"PASS ./a.test.js", "✓ one", "Tests:       1 failed, 1 passed, 2 total"}, []string{"✕ roundtrip"}},
		{"cargo_lib.txt", "cargo", []string{"running 2 tests\ntest tests::adds ... ok\ntest tests::adds_neg ... ok\n\ntest result: ok. 2 passed; 0 failed; 0 ignored"}, []string{"FAIL", "failures:", "error: test failed", "panicked"}},
		{"cargo_lib_result.txt", "cargo", []string{"running 2 tests\n", "test result: ok. 2 passed; 0 failed; 0 ignored"}, []string{"FAIL", "failures:", "error: test failed", "Error:"}},
		{"cargo_lib_real.txt", "cargo", []string{"running 2 tests", "failures:\n\n---- tests::adds stdout ----", "failures:\n    tests::adds\n    tests::adds_neg\n\ntest result: FAILED. 0 passed; 2 failed;", "error: test failed, to rerun pass `--lib`"}, nil},
		{"cargo_integration.txt", "cargo", []string{"test result: ok. 2 passed; 0 failed", "Doc-tests calc"}, []string{"FAIL", "failures:", "error: test failed", "target failed"}},
		{"jest_canary_only.txt", "jest", []string{"PASS ./a.test.js", "Test Suites: 1 passed, 1 total", "Tests:       1 passed, 1 total"}, []string{"failed", "FAIL", "●"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "canaryview", c.file))
			if err != nil {
				t.Fatal(err)
			}
			v := (&canaryPlan{runner: c.runner, token: "kabcdefg"}).view()
			// Written in uneven pieces, as a pipe delivers it.
			var out []byte
			for len(b) > 0 {
				n := min(len(b), 37)
				out = append(out, v.Write(b[:n])...)
				b = b[n:]
			}
			out = append(out, v.Flush()...)
			got := stripANSI(string(out))
			if strings.Contains(strings.ToLower(got), "abcdefg") {
				t.Errorf("the canary is shown:\n%s", got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("want %q in:\n%s", w, got)
				}
			}
			for _, w := range c.never {
				if strings.Contains(got, w) {
					t.Errorf("%q is shown:\n%s", w, got)
				}
			}
		})
	}
}
