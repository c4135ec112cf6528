//go:build linux

package judge

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/test/e2e"
)

// Projects whose tests live in files no default glob names
// (testdata/judge/named/RUNNER: pytest's python_files = check_*.py in
// pytest.ini, unittest's discovery -p 'chk_*.py', vitest's include
// ['checks/**/*.check.ts'], jest's testMatch in package.json, cargo's
// [[test]] target at checks/calc.rs). The runner
// says which files are tests (engine/judge/collect.go), so a candidate that only
// weakens the failing test edits the judge and fails, judged without it;
// the real fix that appends its regression test to that file proposes
// it, reproduces it, and wins untampered. On the build before the
// collection both test files were code: the weakened test passed and won,
// and the fix's appended test "named a test the judge does not have".
func TestE2ECollectedTestFiles(t *testing.T) {
	e2e.Parallel(t)
	runners := []struct {
		rn   e2e.JudgeRunner
		file string
		via  string
	}{
		{e2e.JudgeRunner{Dir: "named/pytest", Command: []string{e2e.PythonWithPytest(t), "-m", "pytest", "-p", "no:cacheprovider"}}, "qa/check_calc.py", "collection"},
		{e2e.JudgeRunner{Dir: "named/unittest", Command: []string{"python3", "-B", "-m", "unittest", "discover", "-s", "qa", "-t", ".", "-p", "chk_*.py", "-v"}, Needs: "python3"}, "qa/chk_calc.py", "command"},
		{e2e.JudgeRunner{Dir: "named/vitest", Command: []string{"node", "node_modules/vitest/vitest.mjs", "run"}, Js: true, Needs: "node"}, "checks/calc.check.ts", "config"},
		{e2e.JudgeRunner{Dir: "named/jest", Command: []string{"node", "node_modules/jest/bin/jest.js", "--ci"}, Js: true, Needs: "node"}, "verify/calc.check.js", "config"},
		{e2e.JudgeRunner{Dir: "named/cargo", Command: []string{"cargo", "test", "--offline"}, Needs: "cargo"}, "checks/calc.rs", "config"},
	}
	for _, x := range runners {
		t.Run(x.rn.Dir, func(t *testing.T) {
			e, flags := e2e.JudgeEnv(t, x.rn)
			if x.rn.Js {
				ownNodeModules(t, e.WS)
			}
			args := append(append(flags, "--headless", "--json", "-C", e.WS, e2e.JudgeSpec(t, x.rn, "spec.json"), "--"), x.rn.Command...)
			out, stderr, code := e.Shadow(args...)
			rep := e.Report(out)
			m := e2e.ByName(rep)
			if b := m["baseline"]; b == nil || b.Tests == nil || b.Tests.Failed != 1 {
				t.Fatalf("baseline must run the project's tests and fail one\n%s\n%s", judgeTable(rep), stderr)
			}
			if tc := rep.TestCollection; tc == nil || tc.Via != x.via || (x.via == "collection" && !slices.Contains(tc.Files, x.file)) {
				t.Errorf("test_collection %+v, want via %s naming %s", tc, x.via, x.file)
			}
			if code != 0 || rep.Winner == nil || *rep.Winner != "fix_append" {
				t.Fatalf("exit %d winner %s, want fix_append\n%s\n%s", code, e2e.Deref(rep.Winner), judgeTable(rep), stderr)
			}
			w := m["weaken"]
			if w.Status != engine.StatusFailed || !slices.Equal(w.JudgeEdits, []string{x.file}) {
				t.Errorf("weaken: status %s judge_edits %v: its edit of %s is a test edit, and judged without it, it fails", w.Status, w.JudgeEdits, x.file)
			}
			f := m["fix_append"]
			if f.Tampered != nil || f.Disqualified != nil || f.Suspicious != nil {
				t.Errorf("fix_append: tampered %q disqualified %q suspicious %q", e2e.Deref(f.Tampered), e2e.Deref(f.Disqualified), e2e.Deref(f.Suspicious))
			}
			if !slices.Equal(f.JudgeEdits, []string{x.file}) {
				t.Errorf("fix_append: judge_edits %v, want [%s]", f.JudgeEdits, x.file)
			}
			if x.rn.Dir == "named/cargo" {
				return // Rust tests are not read as proposals (cross_tests.go), nor forged here
			}
			if p := f.ProposedTests; len(p) != 1 || p[0].Path != x.file || p[0].Reproduces == nil || !*p[0].Reproduces {
				t.Errorf("fix_append: proposed_tests %s, want its appended test, reproducing", e2e.ProposedString(p))
			}
			// The canary is planted where the runner collects
			// (canary_collected.go): a candidate forging the verdict is
			// caught (unittest's assertEqual made a no-op, an exit 0 while
			// pytest collects, Object.is answering true for toBe, libtest's
			// lines printed before an exit 0).
			if g := m["forge"]; g.Tampered == nil {
				t.Errorf("forge: status %s tampered %q suspicious %q: the canary must catch it", g.Status, e2e.Deref(g.Tampered), e2e.Deref(g.Suspicious))
			}
		})
	}
}

// ownNodeModules makes the workspace's node_modules a directory of its own
// (each package a link into the fixture's): vite writes the bundled config
// file to node_modules/.vite-temp, which must be inside the shadow.
func ownNodeModules(t *testing.T, ws string) {
	nm := filepath.Join(ws, "node_modules")
	target, err := os.Readlink(nm)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(target)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(nm); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(nm, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range ents {
		if err := os.Symlink(filepath.Join(target, d.Name()), filepath.Join(nm, d.Name())); err != nil {
			t.Fatal(err)
		}
	}
}
