package judge

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The runners' globs in their own syntax: jest's and vitest's defaults,
// braces, extglobs, "**" with none and several directories.
func TestRunnerGlobSyntax(t *testing.T) {
	cases := []struct {
		base, glob string
		yes, no    []string
	}{
		{"", vitestDefault[0], []string{"a.test.ts", "src/x/a.spec.mjs", "b.test.jsx", "c.test.cts"}, []string{"a.ts", "a.test.py", "test.ts", "a.tests.ts"}},
		{"", jestDefault[0], []string{"__tests__/a.js", "src/__tests__/deep/b.tsx", "x/__tests__/c.mts"}, []string{"__tests__/a.py", "tests/a.js"}},
		{"", jestDefault[1], []string{"a.test.js", "src/a.spec.ts", "test.js", "spec.tsx"}, []string{"a.js", "atest.js"}},
		{"web", "checks/**/*.check.ts", []string{"web/checks/a.check.ts", "web/checks/x/y/b.check.ts"}, []string{"checks/a.check.ts", "web/checks/a.ts", "web/src/checks/a.check.ts"}},
		{"", "check_*.py", []string{"check_a.py", "qa/deep/check_b.py"}, []string{"qa/chk_b.py", "check_a.pyc"}},
		{"qa", "chk_*.py", []string{"qa/chk_a.py", "qa/sub/chk_b.py"}, []string{"chk_a.py", "other/chk_a.py"}},
		{"", "**/verify/*.check.[jt]s", []string{"verify/a.check.js", "x/verify/a.check.ts"}, []string{"verify/x/a.check.js"}},
	}
	for _, c := range cases {
		g := newRunnerGlob(c.base, c.glob)
		if g == nil {
			t.Fatalf("%s does not compile", c.glob)
		}
		for _, p := range c.yes {
			if !g.match(p) {
				t.Errorf("%s: %q must match %s", c.base, c.glob, p)
			}
		}
		for _, p := range c.no {
			if g.match(p) {
				t.Errorf("%s: %q must not match %s", c.base, c.glob, p)
			}
		}
	}
	if newRunnerGlob("", "!**/node_modules/**") != nil {
		t.Errorf("a negation names no test file")
	}
	if r := newRunnerRegex(`(/__tests__/.*|(\.|/)(test|spec))\.[jt]sx?$`); r == nil || !r.match("src/a.test.js") || !r.match("__tests__/b.ts") || r.match("src/a.js") {
		t.Errorf("jest's testRegex over a workspace path")
	}
}

func collectTree(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	for p, s := range files {
		f := filepath.Join(ws, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func globsOf(c *testCollection) []string {
	if c == nil {
		return nil
	}
	return c.report().Globs
}

// vitest's test.include is read from its config, coverage's include is not
// a test glob, and --root moves where it is relative to; without an
// include, vitest's default.
func TestCollectVitestConfig(t *testing.T) {
	ws := collectTree(t, map[string]string{
		"web/vitest.config.ts": `import { defineConfig } from 'vitest/config'
// include: ['not/this/**']
export default defineConfig({
  plugins: [vue()],
  test: {
    environment: 'node',
    /* a comment: include: ['nor/this'] */
    include: ["checks/**/*.check.ts", 'unit/*.ts'],
    coverage: { include: ['src/**'], provider: 'v8' },
  },
})
`,
		"app/vite.config.mjs": "export default { build: { outDir: 'dist' } }\n",
	})
	c := collectVitest(ws, "web", runnerInvocation(filepath.Join(ws, "web"), []string{"npx", "vitest", "run"}))
	if got := globsOf(c); !slices.Equal(got, []string{"web: checks/**/*.check.ts", "web: unit/*.ts"}) || c.via != "config" {
		t.Errorf("vitest globs %v via %s", got, c.via)
	}
	if !c.collects("web/checks/a/b.check.ts") || c.collects("web/src/a.ts") || c.collects("checks/a.check.ts") {
		t.Errorf("vitest's include is relative to the config's directory, coverage's is not a test glob")
	}
	c = collectVitest(ws, "app", runnerInvocation(filepath.Join(ws, "app"), []string{"vitest"}))
	if got := globsOf(c); !slices.Equal(got, []string{"app: " + vitestDefault[0]}) || c.via != "rule" {
		t.Errorf("no include: vitest's default, got %v via %s", got, c.via)
	}
}

// jest's testMatch and testRegex, from package.json's "jest" or
// jest.config.*, <rootDir> followed; the command's --testMatch wins.
func TestCollectJestConfig(t *testing.T) {
	ws := collectTree(t, map[string]string{
		"a/package.json":   `{"name": "a", "jest": {"testMatch": ["<rootDir>/verify/*.check.js"], "coveragePathIgnorePatterns": ["x"]}}`,
		"b/jest.config.js": "module.exports = {\n  rootDir: 'src',\n  testRegex: '(/checks/.*|\\\\.chk)\\\\.js$',\n}\n",
		"b/package.json":   `{"name": "b", "jest": {"testMatch": ["**/ignored/*.js"]}}`,
		"c/package.json":   `{"name": "c"}`,
	})
	c := collectJest(ws, "a", &invocation{runner: "jest"})
	if !c.collects("a/verify/x.check.js") || c.collects("a/x.check.js") || c.collects("verify/x.check.js") {
		t.Errorf("a: globs %v", globsOf(c))
	}
	c = collectJest(ws, "b", &invocation{runner: "jest"})
	if !c.collects("b/src/checks/x.js") || !c.collects("b/src/y.chk.js") || c.collects("b/src/y.js") || c.collects("b/ignored/z.js") {
		t.Errorf("b: jest.config.js wins over package.json, its testRegex: %v", globsOf(c))
	}
	c = collectJest(ws, "c", &invocation{runner: "jest", args: []string{"--testMatch", "**/*.t.js"}})
	if !c.collects("c/x/y.t.js") || c.via != "config" {
		t.Errorf("c: --testMatch: %v", globsOf(c))
	}
	c = collectJest(ws, "c", &invocation{runner: "jest"})
	if c.via != "rule" || !c.collects("c/__tests__/a.js") {
		t.Errorf("c: jest's default testMatch: %v via %s", globsOf(c), c.via)
	}
}

// pytest's configuration as pytest finds it: the first file with a pytest
// section from the command's directory up, pyproject's table and arrays,
// an ini's continuation lines, -o over both.
func TestReadPytestConfig(t *testing.T) {
	ws := collectTree(t, map[string]string{
		"pyproject.toml":      "[project]\nname = 'x'\n\n[tool.pytest.ini_options]\npython_files = [\n  \"check_*.py\",  # ours\n  'verify_*.py',\n]\ntestpaths = [\"qa\"]\naddopts = \"-ra -q\"\n",
		"sub/setup.cfg":       "[metadata]\nname = y\n",
		"other/tox.ini":       "[tox]\nenvlist = py3\n\n[pytest]\npython_files =\n    t_*.py\n    *_t.py\ntestpaths = t\n",
		"other/deep/keep.txt": "",
	})
	ini := readPytestConfig(ws, "sub", nil)
	if ini.dir != "" || !slices.Equal(ini.pythonFiles, []string{"check_*.py", "verify_*.py"}) || !slices.Equal(ini.testpaths, []string{"qa"}) || !slices.Equal(ini.addopts, []string{"-ra", "-q"}) {
		t.Errorf("sub: setup.cfg without [tool:pytest] is passed over for pyproject: %+v", ini)
	}
	ini = readPytestConfig(ws, "other/deep", nil)
	if ini.dir != "other" || !slices.Equal(ini.pythonFiles, []string{"t_*.py", "*_t.py"}) || !slices.Equal(ini.testpaths, []string{"t"}) {
		t.Errorf("other/deep: tox.ini's [pytest]: %+v", ini)
	}
	ini = readPytestConfig(ws, "", []string{"-o", "python_files=chk_*.py", "--override-ini=testpaths=a b"})
	if !slices.Equal(ini.pythonFiles, []string{"chk_*.py"}) || !slices.Equal(ini.testpaths, []string{"a", "b"}) {
		t.Errorf("-o: %+v", ini)
	}
}

// The collection command keeps the command's arguments but those that
// change what is listed or how, and asks for counts per file.
func TestPytestCollectCommand(t *testing.T) {
	inv := runnerInvocation("", []string{"python3", "-m", "pytest", "-vv", "-x", "-k", "slow", "--maxfail=2", "-n", "4", "-p", "no:cacheprovider", "tests", "--lf", "-mnot slow"})
	got := strings.Join(pytestCollectCommand(inv), " ")
	if want := "python3 -m pytest -p no:cacheprovider tests --collect-only -qqqq"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if inv := runnerInvocation("", []string{"sh", "-c", "cd x && FOO=1 pytest -q 'a b'"}); inv == nil || inv.runner != "pytest" || inv.argv || !slices.Equal(inv.args, []string{"-q", "a b"}) {
		t.Errorf("a shell line's last command: %+v", inv)
	}
}

// The collection's output, at any verbosity: counts, node ids, collection
// errors; each path taken where the checkout has it, relative to the
// command's directory or one above it (pytest's rootdir).
func TestPytestCollected(t *testing.T) {
	ws := collectTree(t, map[string]string{
		"proj/qa/check_a.py": "", "proj/qa/check_b.py": "", "proj/pkg/check_c.py": "", "proj/qa/data.yaml": "",
	})
	out := "qa/check_a.py: 3\nproj/pkg/check_c.py::test_x[1]\n\n==== ERRORS ====\n____ ERROR collecting qa/check_b.py ____\nE   ImportError\nERROR qa/check_b.py\nqa/data.yaml::item\nplatform linux: 2\nnowhere.py: 1\n"
	got := pytestCollected(ws, "proj", out)
	if want := []string{"proj/qa/check_a.py", "proj/pkg/check_c.py", "proj/qa/check_b.py", "proj/qa/data.yaml"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// unittest: discover's -s and -p (or its positional start and pattern),
// and the modules a command names.
func TestCollectUnittest(t *testing.T) {
	ws := collectTree(t, map[string]string{"qa/__init__.py": "", "qa/chk_calc.py": "", "pkg/mod.py": ""})
	c := collectUnittest(ws, "", runnerInvocation("", []string{"python3", "-m", "unittest", "discover", "-s", "qa", "-t", ".", "-p", "chk_*.py", "-v"}))
	if !c.collects("qa/chk_calc.py") || !c.collects("qa/sub/chk_new.py") || c.collects("chk_top.py") || c.collects("qa/test_x.py") {
		t.Errorf("-s qa -p chk_*.py: %v", globsOf(c))
	}
	c = collectUnittest(ws, "", runnerInvocation("", []string{"python3", "-m", "unittest", "discover", "qa", "chk_*.py"}))
	if !c.collects("qa/chk_calc.py") {
		t.Errorf("discover qa chk_*.py: %v", globsOf(c))
	}
	c = collectUnittest(ws, "", runnerInvocation("", []string{"python3", "-m", "unittest"}))
	if !c.collects("testfoo.py") || !c.collects("qa/testfoo.py") || c.collects("qa/foo_test.py") {
		t.Errorf("plain unittest discovers test*.py: %v", globsOf(c))
	}
	// Discovery descends only into packages: a testing.py in a plain
	// directory is code; in a directory a candidate adds, a test.
	if c.collects("pkg/testing.py") || !c.collectsNew("newdir/test_x.py") {
		t.Errorf("pkg/ has no __init__.py: its testing.py is not discovered")
	}
	c = collectUnittest(ws, "", runnerInvocation("", []string{"python", "-m", "unittest", "pkg.mod.TestX.test_y", "-v"}))
	if c == nil || !c.collects("pkg/mod.py") {
		t.Errorf("a named module is a test file")
	}
}

// cargo: tests/ and the [[test]] targets' paths.
func TestCollectCargo(t *testing.T) {
	ws := collectTree(t, map[string]string{"Cargo.toml": "[package]\nname = \"x\"\n\n[[test]]\nname = \"checks\"\npath = \"checks/all.rs\" # ours\n\n[[test]]\nname = \"it\"\npath = 'it/main.rs'\n\n[lib]\npath = \"src/lib.rs\"\n"})
	c := collectCargo(ws, "")
	for _, p := range []string{"checks/all.rs", "it/main.rs", "it/helpers.rs", "tests/a.rs"} {
		if !c.collects(p) && !c.collectsNew(p) {
			t.Errorf("%s is a test target's", p)
		}
	}
	if c.collects("src/lib.rs") || c.collectsNew("src/lib.rs") {
		t.Errorf("[lib] is not a test target")
	}
}

// Where pytest listed its files, that list is exact for the checkout's
// files (a broad python_files names source modules it collects nothing
// from); its globs still name the files a candidate adds.
func TestCollectedListIsExact(t *testing.T) {
	c := &testCollection{runner: "pytest", via: "collection", files: map[string]bool{"qa/check_a.py": true},
		globs: []*runnerGlob{newRunnerGlob("", "*.py")}}
	j := newJudge(nil, nil)
	j.collected = c
	if !j.isJudgePath("qa/check_a.py", true) || j.isJudgePath("calc.py", true) || !j.isJudgePath("qa/check_new.py", false) {
		t.Errorf("exact list: check_a a test, calc.py code, a new file by the globs")
	}
	c.via = "config"
	if !j.isJudgePath("calc.py", true) {
		t.Errorf("by config alone, the globs decide")
	}
}

// collectSandbox answers pytest's collection with a fixed listing and
// records the job.
type collectSandbox struct {
	jobs   []fakeJob
	output string
	exit   int
}

func (s *collectSandbox) Mode() Mode     { return "fake" }
func (s *collectSandbox) Parallel() bool { return true }
func (s *collectSandbox) Run(ctx context.Context, job fakeJob) (fakeOutcome, error) {
	s.jobs = append(s.jobs, job)
	job.Output.Write([]byte(s.output))
	return fakeOutcome{ExitCode: s.exit}, nil
}

// pytest's collection runs in the sandbox on the checkout alone (no file
// of any hypothesis, shadow's collection job name), with the command's
// arguments; what it lists is the judge's, but a .py module python_files
// does not name (a plugin's item for a source file: pytest-mypy,
// --doctest-modules) stays code; a YAML file a conftest hook collects is a
// test. A collection that fails leaves the config's globs, and says why;
// where nothing can hook pytest's collection, it is not run.
func TestCollectPytestRunsInTheSandbox(t *testing.T) {
	ws := collectTree(t, map[string]string{
		"pytest.ini": "[pytest]\npython_files = check_*.py\n", "calc.py": "", "qa/check_a.py": "", "qa/cases/add.yaml": "",
		"qa/conftest.py": "def pytest_collect_file(parent, file_path):\n    pass\n",
	})
	sb := &collectSandbox{output: "qa/check_a.py: 2\ncalc.py: 1\nqa/cases/add.yaml: 3\n"}
	cfg := &runConfig{Workspace: ws, Command: []string{"python3", "-m", "pytest", "-q", "--mypy"}, Sandbox: sb}
	c := collectTests(context.Background(), cfg.collectConfig())
	if len(sb.jobs) != 1 || sb.jobs[0].Hyp.Name != collectJobName || len(sb.jobs[0].Hyp.Files) != 0 || len(sb.jobs[0].Hyp.Deletes) != 0 {
		t.Fatalf("jobs %+v: one job, of the checkout alone", sb.jobs)
	}
	if got := strings.Join(sb.jobs[0].Command, " "); got != "python3 -m pytest --mypy --collect-only -qqqq" {
		t.Errorf("command %s", got)
	}
	if c == nil || c.via != "collection" || !slices.Equal(sortedKeys(c.files), []string{"qa/cases/add.yaml", "qa/check_a.py"}) {
		t.Fatalf("collection %+v", c.report())
	}
	j := newJudge(nil, nil)
	j.collected = c
	if !j.is("qa/cases/add.yaml") || j.is("calc.py") || !j.isJudgePath("qa/check_new.py", false) {
		t.Errorf("judge: the YAML case is a test, calc.py code, a new check_*.py a test")
	}
	// Without a conftest.py or a plugin, the configuration is pytest's
	// answer: no pytest start is spent on it.
	os.Remove(filepath.Join(ws, "qa", "conftest.py"))
	sb = &collectSandbox{output: "qa/check_a.py: 2\n"}
	cfg.Sandbox = sb
	if c = collectTests(context.Background(), cfg.collectConfig()); len(sb.jobs) != 0 || c.via != "config" || !c.collects("qa/check_a.py") {
		t.Errorf("no conftest.py: %d jobs, %+v", len(sb.jobs), c.report())
	}
	cfg.Command = append(cfg.Command, "-p", "yamlcases")
	sb = &collectSandbox{output: "ImportError: no module named pytest\n", exit: 1}
	cfg.Sandbox = sb
	c = collectTests(context.Background(), cfg.collectConfig())
	if c == nil || c.via != "config" || !strings.Contains(c.note, "exited 1") || !c.collects("qa/check_a.py") {
		t.Errorf("failed collection: %+v", c.report())
	}
}

// shadow merge --apply splits the winner as the run did: a test appended
// to a file the runner collects is its judge part, not code to write.
func TestJudgePathsInFollowsTheRunner(t *testing.T) {
	ws := collectTree(t, map[string]string{"calc.py": "", "qa/__init__.py": "", "qa/chk_calc.py": ""})
	h := Hypothesis{Name: "fix_append", Files: []File{{Path: "calc.py"}, {Path: "qa/chk_calc.py"}}}
	orig := map[string]FileState{"calc.py": {Exists: true}, "qa/chk_calc.py": {Exists: true}}
	cmd := []string{"python3", "-m", "unittest", "discover", "-s", "qa", "-p", "chk_*.py"}
	if got := JudgePathsIn(ws, "", cmd, []Hypothesis{h}, nil, orig)["fix_append"]; !slices.Equal(got, []string{"qa/chk_calc.py"}) {
		t.Errorf("judge part %v, want [qa/chk_calc.py]", got)
	}
}

// Where the judge did not know a test file (no runner to ask), a test a
// candidate appended there is not "a test the judge does not have": the
// baseline's run named tests of that file, so it is the runner's. The
// candidate, judged with its own change of it, is disqualified, not
// tampered; a name in no such file is still evidence.
func TestAppendedTestInAMissedTestFile(t *testing.T) {
	mk := func(name string, files []string, passed ...string) *result {
		r := &result{Result: &Result{Name: name, Status: StatusPassed, Files: files, Tests: &Tests{Framework: "pytest", Passed: len(passed)}}, judged: true}
		r.passedTests, r.failedTests = set(passed), map[string]bool{}
		return r
	}
	base := mk("baseline", nil, "qa/check_calc.py::test_zero", "qa/check_calc.py::test_two")
	fix := mk("fix_append", []string{"calc.py", "qa/check_calc.py"}, "qa/check_calc.py::test_zero", "qa/check_calc.py::test_two", "qa/check_calc.py::test_three")
	forged := mk("forged", []string{"calc.py"}, "qa/check_calc.py::test_zero", "qa/check_calc.py::test_two", "qa/check_other.py::test_x")
	tamperVerdict([]*result{base, fix, forged}, base)
	tamperVerdict([]*result{base, fix, forged}, base) // again, as rank may
	if fix.Tampered != nil || fix.Disqualified == nil || strings.Count(*fix.Disqualified, "qa/check_calc.py") != 1 {
		t.Errorf("fix_append: tampered %v disqualified %v", fix.Tampered, fix.Disqualified)
	}
	if forged.Tampered == nil || !strings.Contains(*forged.Tampered, "the judge does not have") {
		t.Errorf("forged: tampered %v", forged.Tampered)
	}
}
