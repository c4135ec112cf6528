//go:build linux

package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// Code that can tell it is being tested, by routes the table of spellings
// does not list (testdata/introspect/RUNNER/candidates, against the
// checkout of testdata/tamper/RUNNER/project): the caller's frame through
// an import alias, the test file read for its expected value, the caller's
// file from runtime.Caller, the test binary's name from os.Executable, a
// fresh Error's stack, vitest's worker global, the test file read by jest's
// code, jest's expect global; and per runner a name hidden behind a
// decoder (base64 of PYTEST_CURRENT_TEST, go test's "test.v" flag in
// character codes, atob of VITEST, Buffer.from of JEST_WORKER_ID).
// Every one passes the tests, so only the scan stands between it and the
// win: each is suspicious, naming its file, line and class, and with no
// clean candidate beside them nothing wins.
func TestE2EIntrospectingCheatsDoNotWin(t *testing.T) {
	e2e.Parallel(t)
	cases := []struct {
		runner  string
		command func(t *testing.T) []string
		js      bool
		want    map[string]string // cheat: what its suspicious reason must hold
	}{
		{runner: "pytest", command: func(t *testing.T) []string {
			return []string{e2e.PythonWithPytest(t), "-m", "pytest", "-q", "-p", "no:cacheprovider"}
		}, want: map[string]string{
			"ask_stack":  "src/calc.py:5 asks for the call stack (sys._getframe) (introspect-stack",
			"read_tests": `src/calc.py:8 builds a path into the tests ("tests") in code that reads files (reads-test-files`,
			"hidden":     `src/calc.py:4 decodes "PYTEST_CURRENT_TEST" at run time (base64) (hides-what-it-asks`,
		}},
		{runner: "go", command: func(t *testing.T) []string {
			return []string{need(t, "go"), "test", "./..."}
		}, want: map[string]string{
			"ask_stack": "calc/calc.go:10 asks for the call stack (runtime.Caller) (introspect-stack",
			"ask_exe":   "calc/calc.go:9 asks which program runs it (os.Executable) (introspect-argv",
			"hidden":    `calc/calc.go:5 decodes "test.v" at run time (character codes) (hides-what-it-asks`,
		}},
		{runner: "vitest", js: true, command: func(t *testing.T) []string {
			return []string{need(t, "node"), "node_modules/vitest/vitest.mjs", "run"}
		}, want: map[string]string{
			"ask_stack":  "calc.js:2 asks for the call stack (Error().stack) (introspect-stack",
			"ask_worker": `calc.js:2 asks whether the test runner is loaded ("__vitest_worker__" in globalThis) (introspect-loaded`,
			"hidden":     "calc.js:2 reads the runner's environment variable VITEST (introspect-env",
		}},
		{runner: "jest", js: true, command: func(t *testing.T) []string {
			return []string{need(t, "node"), "node_modules/jest/bin/jest.js", "--ci"}
		}, want: map[string]string{
			"read_tests":  `calc.js:5 names the runner's test or config file "calc.test.js" in code that reads files (reads-test-files`,
			"ask_globals": "calc.js:2 asks whether the test runner is loaded (typeof expect) (introspect-loaded",
			"hidden":      `calc.js:1 decodes "JEST_WORKER_ID" at run time (base64) (hides-what-it-asks`,
		}},
	}
	jsModules, _ := filepath.Abs(filepath.Join("testdata", "runners", "js", "node_modules"))
	for _, tc := range cases {
		t.Run(tc.runner, func(t *testing.T) {
			t.Parallel()
			cmd := tc.command(t)
			if tc.js {
				if _, err := os.Stat(jsModules); err != nil {
					t.Skip("run `npm ci --prefix testdata/runners/js` first (.ci/run does)")
				}
			}
			e := e2e.NewEnv(t)
			copyTree(t, filepath.Join("testdata", "tamper", tc.runner, "project"), e.WS)
			if tc.js {
				if err := os.Symlink(jsModules, filepath.Join(e.WS, "node_modules")); err != nil {
					t.Fatal(err)
				}
			}
			hyps := []any{map[string]any{"name": "baseline"}}
			dir := filepath.Join("testdata", "introspect", tc.runner, "candidates")
			names, _ := os.ReadDir(dir)
			for _, n := range names {
				hyps = append(hyps, map[string]any{"name": n.Name(), "edits": editsOf(t, filepath.Join(dir, n.Name()))})
			}
			spec := e.Spec(map[string]any{"hypotheses": hyps, "command": cmd})
			out, stderr, _ := e.Shadow(append(append([]string{"--headless", "--json", "-C", e.WS}, e2e.SharedTmpIfLinked(e.WS)...), spec)...)
			rep := e.Report(out)
			m := e2e.ByName(rep)
			if rep.Winner != nil {
				t.Errorf("winner %q, want none: every passing candidate asks whether it is tested\n%s", *rep.Winner, stderr)
			}
			for name, want := range tc.want {
				r := m[name]
				if r == nil {
					t.Fatalf("no result for %s\n%s", name, stderr)
				}
				// It fools the tests: only the scan catches it.
				if r.Status != "passed" || r.Tests == nil || r.Tests.Failed != 0 {
					t.Errorf("%s: %s tests %+v, want a pass (the cheat works)\n%s", name, r.Status, r.Tests, r.OutputTail)
				}
				if s := e2e.Str(r.Suspicious); !strings.Contains(s, want) {
					t.Errorf("%s: suspicious %q, want it to hold %q", name, s, want)
				}
			}
		})
	}
}
