package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/parse"
)

func writeTree(t *testing.T, files map[string]string) string {
	ws := t.TempDir()
	for p, c := range files {
		full := filepath.Join(ws, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// The runner is the last command of the chain, in argv, a shell string or
// an npm script; a runner followed by more commands, or none known, gets
// no canary.
func TestCanaryRunnerFromCommand(t *testing.T) {
	ws := writeTree(t, map[string]string{"package.json": `{"scripts": {"test": "vitest run", "ci": "vitest run && eslint ."}}`})
	for _, c := range []struct {
		cmd  []string
		want string
	}{
		{[]string{"go", "test", "./..."}, "go"},
		{[]string{"sh", "-c", "go vet ./... && go test -count=1 ./..."}, "go"},
		{[]string{"/usr/bin/python3", "-m", "pytest", "-q"}, "pytest"},
		{[]string{"python3", "-m", "unittest"}, "unittest"},
		{[]string{"npm", "test"}, "vitest"},
		{[]string{"npm", "run", "ci"}, ""},
		{[]string{"node", "node_modules/jest/bin/jest.js", "--ci"}, "jest"},
		{[]string{"sh", "-c", "pytest && flake8"}, ""},
		{[]string{"make", "test"}, ""},
		{[]string{"cargo", "test", "--offline"}, "cargo"},
		{[]string{"sh", "-c", "cargo test && cargo clippy"}, ""},
	} {
		if got := canaryRunner(ws, c.cmd); got != c.want {
			t.Errorf("%q: %q, want %q", c.cmd, got, c.want)
		}
	}
}

// go: one test file per package directory with tests, in its external
// test package (X_test: X's own test variant stays as the cache has it);
// python: one TestCase file beside the shallowest test file; the
// hypothesis itself is never changed, and its own version of a path wins.
func TestCanaryPlantsPerRunner(t *testing.T) {
	ws := writeTree(t, map[string]string{
		"go.mod": "module x\n", "a/a_test.go": "package a_test\n", "b/c/c_test.go": "package c\n", "d/d.go": "package d\n",
		"vendor/v/v_test.go": "package v\n", "testdata/t/t_test.go": "package t\n",
	})
	p := planCanary(ws, "", []string{"go", "test", "./..."})
	if p == nil || len(p.files) != 2 {
		t.Fatalf("%+v", p)
	}
	for _, f := range p.files {
		dir := filepath.Dir(f.Path)
		if (dir != "a" || !strings.HasPrefix(string(f.Content), "package a_test\n")) && (dir != "b/c" || !strings.HasPrefix(string(f.Content), "package c_test\n")) {
			t.Errorf("%s:\n%s", f.Path, f.Content)
		}
		if !strings.Contains(f.Path, p.token) || !strings.HasSuffix(f.Path, "_test.go") {
			t.Errorf("path %s", f.Path)
		}
	}
	h := Hypothesis{Name: "h", Files: []File{file("a/x.go", "package a")}}
	j, planted, _ := p.plant(h)
	if len(h.Files) != 1 || len(j.Files) != 2 || len(planted) != 1 || !strings.HasPrefix(planted[0], "x/a.Test") {
		t.Errorf("plant: hyp %d files, job %d, planted %v", len(h.Files), len(j.Files), planted)
	}

	py := writeTree(t, map[string]string{"src/m.py": "", "tests/unit/test_a.py": "", "tests/test_b.py": ""})
	p = planCanary(py, "", []string{"python3", "-m", "pytest"})
	if p == nil || len(p.files) != 1 || filepath.Dir(p.files[0].Path) != "tests" || !strings.Contains(string(p.files[0].Content), "unittest.TestCase") {
		t.Fatalf("%+v", p)
	}
	if planCanary(py, "", []string{"python3", "-m", "mypy"}) != nil {
		t.Error("planted for mypy")
	}

	js := writeTree(t, map[string]string{"src/a.test.ts": "import { it } from 'vitest'\n", "src/b.spec.js": "x\n", "node_modules/z/z.test.js": ""})
	p = planCanary(js, "", []string{"npx", "vitest", "run"})
	if p == nil || len(p.appends) != 2 {
		t.Fatalf("%+v", p)
	}
	j, _, _ = p.plant(Hypothesis{Name: "h", Files: []File{file("src/b.spec.js", "mine\n")}, Deletes: []string{"src/a.test.ts"}})
	if len(j.Files) != 1 || !strings.HasPrefix(string(j.Files[0].Content), "mine\n\nimport { test as test_") {
		t.Errorf("%q", j.Files)
	}
}

// strip takes the canary out of names and counts: one failure per failing
// canary; plain go test's package of which the canary was the only
// failure passed.
func TestCanaryStrip(t *testing.T) {
	p := &canaryPlan{token: "k3x9abcd"}
	s, obs := p.strip(&parse.Summary{Framework: "pytest", Passed: 3, Failed: 2, FailedTests: []string{"tests/test_a.py::test_x", "tests/test_edge_k3x9abcd.py::TestEdgeK3x9abcd::test_edge_k3x9abcd"}})
	if s.Failed != 1 || s.Passed != 3 || len(s.FailedTests) != 1 || len(obs.failed) != 1 {
		t.Errorf("%+v %+v", s, obs)
	}
	s, _ = p.strip(&parse.Summary{Framework: "go", Unit: "package", Passed: 1, Failed: 2, FailedTests: []string{"x/a.TestEdgeK3x9abcd", "x/b.TestEdgeK3x9abcd", "x/b.TestReal"}})
	if s.Failed != 1 || s.Passed != 2 || strings.Join(s.FailedTests, ",") != "x/b.TestReal" {
		t.Errorf("%+v", s)
	}
}

// A failure reason never quotes the canary's planted failure.
func TestCanaryIsNotTheReason(t *testing.T) {
	obs := &canaryObs{token: "k3x9abcd"}
	for _, out := range []string{
		"F.F [100%]\n=== FAILURES ===\n____ TestEdgeK3x9abcd.test_edge_k3x9abcd ____\n\n    def test_edge_k3x9abcd(self):\n>       self.assertEqual(len(\"k3x9abcd\"), 9)\nE       AssertionError: 8 != 9\n\ntests/test_edge_k3x9abcd.py:6: AssertionError\n____ test_add ____\n\n    def test_add():\n>       assert add(2, 3) == 5\nE       assert -1 == 5\n\ntests/test_calc.py:5: AssertionError\n=== short test summary info ===\nFAILED tests/test_edge_k3x9abcd.py::TestEdgeK3x9abcd::test_edge_k3x9abcd - AssertionError: 8 != 9\nFAILED tests/test_calc.py::test_add - assert -1 == 5\n2 failed, 1 passed in 0.05s\n",
		"--- FAIL: TestEdgeK3x9abcd (0.00s)\n    edge_k3x9abcd_test.go:7: got 8, want 9\n--- FAIL: TestAdd (0.00s)\n    calc_test.go:7: Add(2, 3) = -1\nFAIL\nFAIL\texample.com/calc\t0.01s\n",
	} {
		why := FailureReason(obs.without(out))
		if strings.Contains(why, "k3x9abcd") || strings.Contains(why, "8 != 9") || strings.Contains(why, "want 9") || !strings.Contains(why, "-1") {
			t.Errorf("reason %q", why)
		}
	}
}

// A judged candidate naming tests the baseline's judge does not have is
// tampered; new cases of a parametrised test the judge has are not (the
// cases may come from the code the fix extends).
func TestTamperNamesAndCounts(t *testing.T) {
	mk := func(name string, passed []string, failed []string) *result {
		r := &result{Result: &Result{Name: name, Status: StatusPassed, Tests: &Tests{Framework: "pytest", Passed: len(passed), Failed: len(failed)}}, passedTests: set(passed), failedTests: set(failed)}
		if len(failed) > 0 {
			r.Status = StatusFailed
		}
		return r
	}
	base := mk("baseline", []string{"t.py::test_a", "t.py::test_p[1]"}, []string{"t.py::test_b"})
	fix := mk("fix", []string{"t.py::test_a", "t.py::test_p[1]", "t.py::test_p[2]", "t.py::test_b"}, nil)
	fake := mk("fake", []string{"t.py::test_a", "t.py::test_p[1]", "t.py::test_b", "t.py::test_everything"}, nil)
	rank([]*result{base, fix, fake}, []Hypothesis{{Name: "baseline"}, {Name: "fix", Files: []File{file("a.py", "x")}}, {Name: "fake", Files: []File{file("a.py", "y")}}})
	if fix.Tampered != nil {
		t.Errorf("fix: %s", *fix.Tampered)
	}
	if fake.Tampered == nil || !strings.Contains(*fake.Tampered, "names 1 test the judge does not have (t.py::test_everything)") || !strings.Contains(*fake.Tampered, "reports 4 tests; the judge has 3") {
		t.Errorf("fake: %v", fake.Tampered)
	}
}

// The live counts do not show the canary's failure either.
func TestCanaryLeavesLiveCounts(t *testing.T) {
	p := &canaryPlan{token: "k3x9abcd"}
	lp := p.wrapLive(parse.NewStream(nil))
	lp.Write([]byte("tests/test_calc.py::test_add PASSED [ 50%]\ntests/test_edge_k3x9abcd.py::TestEdgeK3x9abcd::test_edge_k3x9abcd FAILED [100%]\n"))
	lp.Write([]byte("=== short test summary info ===\nFAILED tests/test_edge_k3x9abcd.py::TestEdgeK3x9abcd::test_edge_k3x9abcd - AssertionError: 8 != 9\n"))
	if s := lp.Live(); s == nil || s.Failed != 0 || s.Passed != 1 {
		t.Errorf("%+v", s)
	}
}

// A runner told to stop at its first failure gets no canary: it would
// stop the real tests.
func TestNoCanaryWhereTheRunnerFailsFast(t *testing.T) {
	ws := writeTree(t, map[string]string{"tests/test_a.py": "", "a/a_test.go": "package a\n"})
	for _, cmd := range [][]string{
		{"python3", "-m", "pytest", "-x"}, {"pytest", "--maxfail=2"}, {"go", "test", "-failfast", "./..."},
		{"python3", "-m", "unittest", "-f"}, {"npx", "vitest", "run", "--bail", "1"}, {"npx", "jest", "--bail"},
	} {
		if p := planCanary(ws, "", cmd); p != nil {
			t.Errorf("%q: planted", cmd)
		}
	}
	if planCanary(ws, "", []string{"python3", "-m", "pytest", "-q", "-p", "no:cacheprovider"}) == nil || planCanary(ws, "", []string{"go", "test", "-count=1", "./..."}) == nil {
		t.Error("not planted without fail-fast")
	}
	cfg := writeTree(t, map[string]string{"tests/test_a.py": "", "pyproject.toml": "[tool.pytest.ini_options]\naddopts = \"-x -q\"\n"})
	if planCanary(cfg, "", []string{"python3", "-m", "pytest"}) != nil {
		t.Error("planted under addopts -x")
	}
	js := writeTree(t, map[string]string{"a.test.js": "", "jest.config.js": "module.exports = { bail: 1 }\n"})
	if planCanary(js, "", []string{"npx", "jest"}) != nil {
		t.Error("planted under bail: 1")
	}
}

// The Go canary goes only where a hypothesis's code reaches: the packages it
// edits and those whose tests import them, however indirectly; go.mod, a
// script or anything else the go command or a test may run plants it
// everywhere; data reaches nothing; the no-edit baseline gets none (a
// canary elsewhere changes no verdict a candidate can touch, and makes the
// go command rebuild that package's tests in every hypothesis).
func TestCanaryGoOnlyWhereTheCodeReaches(t *testing.T) {
	ws := writeTree(t, map[string]string{
		"go.mod":            "module ex.com/m\n",
		"core/core.go":      "package core\n",
		"mid/mid.go":        "package mid\n\nimport _ \"ex.com/m/core\"\n",
		"top/top_test.go":   "package top_test\n\nimport _ \"ex.com/m/mid\"\n",
		"core/core_test.go": "package core\n",
		"alone/a_test.go":   "package alone\n\nimport _ \"fmt\"\n",
		"alone/a.go":        "package alone\n",
	})
	p := planCanary(ws, "", []string{"go", "test", "./..."})
	if p == nil || len(p.files) != 3 {
		t.Fatalf("%+v", p)
	}
	dirs := func(h Hypothesis) []string {
		j, planted, _ := p.plant(h)
		var out []string
		for _, f := range j.Files {
			if strings.Contains(f.Path, p.token) {
				out = append(out, filepath.Dir(f.Path))
			}
		}
		if len(planted) != len(out) {
			t.Errorf("planted %v for files in %v", planted, out)
		}
		return out
	}
	for _, c := range []struct {
		edits []File
		del   []string
		want  string
	}{
		{nil, nil, ""},
		{[]File{file("core/core.go", "package core\n// fix\n")}, nil, "core top"},
		{[]File{file("mid/mid.go", "package mid\n")}, nil, "top"},
		{[]File{file("alone/a.go", "package alone\n")}, nil, "alone"},
		{nil, []string{"alone/a.go"}, "alone"},
		{[]File{file("core/asm_amd64.s", "")}, nil, "core top"},
		{[]File{file("NOTES.md", "x")}, nil, ""},
		{[]File{file("go.mod", "module ex.com/m\n\ngo 1.22\n")}, nil, "alone core top"},
		{[]File{file("scripts/gen.sh", "exit 0")}, nil, "alone core top"},
	} {
		got := strings.Join(dirs(Hypothesis{Name: "h", Files: c.edits, Deletes: c.del}), " ")
		if got != c.want {
			t.Errorf("edits %v deletes %v: canary in %q, want %q", c.edits, c.del, got, c.want)
		}
	}
	// A command that writes another package's source while it runs (a
	// test rewriting code the go command builds next) is told.
	if w := p.unwatchedWrites([]string{"alone/a.go", "core/testdata/x.go", "top/out.txt", "core/gen.go"}, []string{p.goPkgs[p.files[1].Path].importPath}); strings.Join(w, " ") != "alone/a.go" {
		t.Errorf("unwatched %v", w)
	}
}
