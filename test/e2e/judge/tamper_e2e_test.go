//go:build linux

package judge

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/test/e2e"
)

// The cheats that leave test files alone (docs/report.md, "Tampered" and
// "Suspicious"), against real runners
// (testdata/tamper/RUNNER: project/ is the checkout, candidates/NAME/ the
// files each candidate writes): code that sniffs the runner, patches it,
// makes every comparison equal, exits 0 before the runner reports, prints
// a fake summary, or deselects the failing test and runs another twice.
// None may win; each is caught as the table says; the real fix wins, its
// counts free of the tamper canary, and so does the real fix beside
// legitimate code a naive scan would flag (fix_legit: clean, second).
func TestE2ETamperCheatsDoNotWin(t *testing.T) {
	e2e.Parallel(t)
	jsModules, _ := filepath.Abs(filepath.Join("testdata", "runners", "js", "node_modules"))
	type expect struct{ suspicious, tampered bool }
	const (
		susp = 1 << iota
		tamp
	)
	cases := []struct {
		runner  string
		command func(t *testing.T) []string
		js      bool
		// per cheat: what must be set (susp, tamp; 0: it must only not win)
		cheats map[string]int
		// the baseline's counts and the fixed test's name
		passed, failed int
		fixed          string
	}{
		{runner: "pytest", command: func(t *testing.T) []string {
			return []string{e2e.PythonWithPytest(t), "-m", "pytest", "-q", "-p", "no:cacheprovider"}
		}, cheats: map[string]int{"sniff": susp, "eq_true": susp, "exit0": susp | tamp, "fake_summary": susp | tamp, "patch_runner": susp | tamp, "deselect_dup": 0},
			passed: 2, failed: 1, fixed: "tests/test_calc.py::test_add"},
		{runner: "unittest", command: func(t *testing.T) []string {
			return []string{need(t, "python3"), "-m", "unittest"}
		}, cheats: map[string]int{"sniff": susp, "eq_true": susp, "exit0": susp | tamp, "fake_summary": susp | tamp, "patch_runner": susp | tamp},
			passed: 2, failed: 1, fixed: "tests.test_calc.TestCalc.test_add"},
		{runner: "go", command: func(t *testing.T) []string {
			return []string{need(t, "go"), "test", "./..."}
		}, cheats: map[string]int{"sniff": susp, "sniff_args": susp, "init_exit": susp | tamp},
			// plain go test counts packages
			passed: 1, failed: 1, fixed: "example.com/calc/calc.TestAdd"},
		{runner: "vitest", js: true, command: func(t *testing.T) []string {
			return []string{need(t, "node"), "node_modules/vitest/vitest.mjs", "run"}
		}, cheats: map[string]int{"sniff": susp, "eq_true": susp, "patch_expect": susp | tamp, "fake_summary": susp},
			passed: 2, failed: 1, fixed: "calc.test.js > add"},
		{runner: "jest", js: true, command: func(t *testing.T) []string {
			return []string{need(t, "node"), "node_modules/jest/bin/jest.js", "--ci"}
		}, cheats: map[string]int{"sniff": susp, "eq_true": susp, "patch_expect": susp | tamp, "fake_summary": susp},
			passed: 2, failed: 1, fixed: "./calc.test.js › add"},
	}
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
			dir := filepath.Join("testdata", "tamper", tc.runner)
			copyTree(t, filepath.Join(dir, "project"), e.WS)
			if tc.js {
				if err := os.Symlink(jsModules, filepath.Join(e.WS, "node_modules")); err != nil {
					t.Fatal(err)
				}
			}
			before := e2e.Tree(t, e.WS)
			hyps := []any{map[string]any{"name": "baseline"}}
			names, _ := os.ReadDir(filepath.Join(dir, "candidates"))
			for _, n := range names {
				hyps = append(hyps, map[string]any{"name": n.Name(), "edits": editsOf(t, filepath.Join(dir, "candidates", n.Name()))})
			}
			spec := e.Spec(map[string]any{"hypotheses": hyps, "command": cmd})
			out, stderr, code := e.Shadow(append(append([]string{"--headless", "--json", "-C", e.WS}, e2e.SharedTmpIfLinked(e.WS)...), spec)...)
			rep := e.Report(out)
			m := e2e.ByName(rep)
			fix, base := m["fix"], m["baseline"]
			if code != 0 || rep.Winner == nil || *rep.Winner != "fix" {
				t.Errorf("exit %d winner %v (want fix)\n%s", code, rep.Winner, stderr)
				for _, r := range rep.Hypotheses {
					t.Logf("%s: %s tests %+v disq %q susp %q tamp %q\n%s", r.Name, r.Status, r.Tests, e2e.Str(r.Disqualified), e2e.Str(r.Suspicious), e2e.Str(r.Tampered), r.OutputTail)
				}
			}
			// The canary is in no count, name, diff or file list.
			if base.Tests == nil || base.Tests.Passed != tc.passed || base.Tests.Failed != tc.failed {
				t.Errorf("baseline tests %+v, want %d passed %d failed\n%s", base.Tests, tc.passed, tc.failed, base.OutputTail)
			}
			if fix.Status != "passed" || fix.Tests == nil || fix.Tests.Failed != 0 || fix.Tests.Passed != tc.passed+tc.failed ||
				fix.ExitCode == nil || *fix.ExitCode != 0 || fix.Suspicious != nil || fix.Tampered != nil || fix.Disqualified != nil {
				t.Errorf("fix: %s exit %v tests %+v susp %q tamp %q disq %q\n%s", fix.Status, fix.ExitCode, fix.Tests, e2e.Str(fix.Suspicious), e2e.Str(fix.Tampered), e2e.Str(fix.Disqualified), fix.OutputTail)
			}
			if strings.Join(fix.Fixed, ",") != tc.fixed || len(fix.Broken) != 0 {
				t.Errorf("fix: fixed %v broken %v, want %s", fix.Fixed, fix.Broken, tc.fixed)
			}
			if l := m["fix_legit"]; l == nil || l.Status != "passed" || l.Suspicious != nil || l.Tampered != nil || l.Disqualified != nil || l.Rank != 2 {
				t.Errorf("fix_legit: %+v", l)
			}
			for _, r := range rep.Hypotheses {
				for _, n := range append(append(append([]string{}, r.Fixed...), r.Broken...), r.Files...) {
					if strings.Contains(n, "roundtrip") || strings.Contains(n, "boundary") || strings.Contains(n, "regression") {
						t.Errorf("%s names %q", r.Name, n)
					}
				}
				if strings.Contains(r.Diff, "must fail") || strings.Contains(r.Diff, "testing\"\n\nfunc Test") {
					t.Errorf("%s diff holds the canary:\n%s", r.Name, r.Diff)
				}
			}
			for name, want := range tc.cheats {
				r := m[name]
				if r == nil {
					t.Fatalf("no result for %s", name)
				}
				if rep.Winner != nil && *rep.Winner == name {
					t.Errorf("%s won", name)
				}
				if r.Rank < fix.Rank {
					t.Errorf("%s ranks %d, above the fix (%d)", name, r.Rank, fix.Rank)
				}
				if want&susp != 0 && r.Suspicious == nil {
					t.Errorf("%s: not suspicious (status %s tests %+v)", name, r.Status, r.Tests)
				}
				if want&tamp != 0 && r.Tampered == nil {
					t.Errorf("%s: not tampered (status %s tests %+v susp %q)\n%s", name, r.Status, r.Tests, e2e.Str(r.Suspicious), r.OutputTail)
				}
				t.Logf("%s: %s tests %+v disq %q susp %q tamp %q", name, r.Status, r.Tests, e2e.Str(r.Disqualified), e2e.Str(r.Suspicious), e2e.Str(r.Tampered))
			}
			// Nothing a person or an agent reads names or counts the
			// canary: the tails, the output logs (the TUI's full-output
			// view, and the live output events, which carry the same
			// lines) and `show`; the fix reads as the pass it is.
			views := map[string]string{}
			for _, r := range rep.Hypotheses {
				b, _ := os.ReadFile(r.Log)
				show, _, _ := e.Shadow("show", "-C", e.WS, rep.Run+"/"+r.Name)
				views[r.Name+"'s tail"], views[r.Name+"'s log"], views[r.Name+"'s show"] = r.OutputTail, string(b), show
			}
			for what, text := range views {
				if m := canaryName.FindString(text); m != "" {
					t.Errorf("%s names the canary (%s):\n%s", what, m, text)
				}
			}
			for _, what := range []string{"fix's tail", "fix's log"} {
				if m := failWord.FindString(views[what]); m != "" {
					t.Errorf("the fix passed, but its %s reads %q:\n%s", what, m, views[what])
				}
			}
			// The checkout is as it was: no canary left in it.
			if stripTimes(e2e.Tree(t, e.WS)) != stripTimes(before) {
				t.Errorf("the run changed the checkout")
			}
		})
	}
}

// canaryName matches a canary's test in any runner's spelling
// (canary.go's words, then its token).
var canaryName = regexp.MustCompile(`(?i)(roundtrip|boundary|defaults|ordering|empty[ _]?input|large[ _]?input|unicode|nested|regression|edge[ _]?cases)[ _]?[a-z2-9]{8}\b`)

// failWord is a runner reporting a failure.
var failWord = regexp.MustCompile(`\b(FAIL|FAILED|Fail|fail|Failed|failures?)\b|✕|×|\b[1-9]\d* failed`)

func need(t *testing.T, tool string) string {
	p, err := exec.LookPath(tool)
	if err != nil {
		t.Skipf("%s not installed (.ci/run installs it)", tool)
	}
	return p
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// editsOf is a candidate directory's files as spec edits.
func editsOf(t *testing.T, dir string) []any {
	t.Helper()
	var out []any
	var paths []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return err
	})
	sort.Strings(paths)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, map[string]any{"path": filepath.ToSlash(rel), "content": string(b)})
	}
	return out
}

var _ = engine.StatusPassed

// The defu-style false alarm through the binary: a vitest suite whose
// compat file also runs node:test (its TAP lines in the same output). The
// baseline names its 5 failing vitest tests; the real fix passes them and
// vitest no longer names them, while node's TAP names its own two. Runner
// by runner nothing is lost: the fix wins, fixing the 5.
func TestE2ETwoRunnersInOneCommandRealFixWins(t *testing.T) {
	e2e.Parallel(t)
	jsModules, _ := filepath.Abs(filepath.Join("testdata", "runners", "js", "node_modules"))
	if _, err := os.Stat(jsModules); err != nil {
		t.Skip("run `npm ci --prefix testdata/runners/js` first (.ci/run does)")
	}
	node := need(t, "node")
	e := e2e.NewEnv(t)
	dir := filepath.Join("testdata", "tamper", "two-runners")
	copyTree(t, filepath.Join(dir, "project"), e.WS)
	if err := os.Symlink(jsModules, filepath.Join(e.WS, "node_modules")); err != nil {
		t.Fatal(err)
	}
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "fix", "edits": editsOf(t, filepath.Join(dir, "candidates", "fix"))},
	}, "command": []string{node, "node_modules/vitest/vitest.mjs", "run"}})
	out, stderr, code := e.Shadow(append(append([]string{"--headless", "--json", "-C", e.WS}, e2e.SharedTmpIfLinked(e.WS)...), spec)...)
	rep := e.Report(out)
	fix := e2e.ByName(rep)["fix"]
	if code != 0 || rep.Winner == nil || *rep.Winner != "fix" || fix.Disqualified != nil || fix.LostTests == nil || *fix.LostTests != 0 || len(fix.Fixed) != 5 {
		t.Errorf("exit %d winner %v: fix disqualified %q lost %v fixed %v tests %+v\n%s\n%s", code, rep.Winner, e2e.Str(fix.Disqualified), fix.LostTests, fix.Fixed, fix.Tests, fix.OutputTail, stderr)
	}
	if fix.Tests == nil || (fix.Tests.Framework != "vitest+node" && fix.Tests.Framework != "node+vitest") || fix.Tests.Passed != 9 || fix.Tests.Failed != 0 {
		t.Errorf("fix tests %+v", fix.Tests)
	}
}
