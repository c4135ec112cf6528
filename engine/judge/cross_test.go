package judge

import (
	"github.com/shadow-dev/shadow/engine/report"

	"github.com/shadow-dev/shadow/engine/checkout"

	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// calcSandbox runs a tiny pytest-shaped suite for real, from the files the
// job holds over the workspace, so what a job gets decides what passes:
// the code file calc.txt says what calc(x) returns ("fixed": x+"!" for
// every x; "overfit:X": only for X; anything else, or no file: "bug"),
// and each test file tests/test_*.py holds "def test_NAME():" lines, each
// followed by "    # expect X" (calc(X) must be X+"!"). A command whose
// arguments hold pytest node ids runs only those (as selectTests asks).
// It prints "ok FILE::NAME" / "FAIL FILE::NAME" (countParser's form).
type calcSandbox struct {
	mu   sync.Mutex
	jobs []fakeJob
}

func (c *calcSandbox) Mode() Mode     { return "fake" }
func (c *calcSandbox) Parallel() bool { return true }

var calcTest = regexp.MustCompile(`(?m)^def (test\w+)\(\):\n    # expect (\S+)$`)

func (c *calcSandbox) Run(ctx context.Context, job fakeJob) (fakeOutcome, error) {
	c.mu.Lock()
	c.jobs = append(c.jobs, job)
	c.mu.Unlock()
	files := map[string]string{}
	filepath.Walk(job.Workspace, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			rel, _ := filepath.Rel(job.Workspace, p)
			b, _ := os.ReadFile(p)
			files[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	for _, f := range job.Hyp.Files {
		files[f.Path] = string(f.Content)
	}
	for _, d := range job.Hyp.Deletes {
		delete(files, d)
	}
	code := strings.TrimSpace(files["calc.txt"])
	calc := func(x string) string {
		if code == "fixed" || code == "overfit:"+x {
			return x + "!"
		}
		return "bug"
	}
	only := map[string]bool{}
	for _, a := range job.Command {
		if strings.Contains(a, "::") {
			only[a] = true
		}
	}
	var paths []string
	for p := range files {
		if strings.HasPrefix(p, "tests/test_") {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	exit := 0
	for _, p := range paths {
		for _, m := range calcTest.FindAllStringSubmatch(files[p], -1) {
			id := p + "::" + m[1]
			if len(only) > 0 && !only[id] {
				continue
			}
			if m[2] == "hang" {
				<-ctx.Done() // a proposed test that never ends
				return fakeOutcome{ExitCode: -1, Signal: "SIGKILL"}, nil
			}
			// "# expect 1,bug:2": calc(1) is "1!" and calc(2) is still
			// "bug" (a test asserting an overfit's own behaviour). A
			// failure says which expectation failed, as pytest's
			// "file:line: AssertionError" does.
			failed := 0
			for i, x := range strings.Split(m[2], ",") {
				if y, ok := strings.CutPrefix(x, "bug:"); ok && calc(y) != "bug" || !ok && x != "any" && calc(x) != x+"!" {
					failed = i + 1
					break
				}
			}
			if failed == 0 {
				fmt.Fprintf(job.Output, "ok %s\n", id)
			} else {
				fmt.Fprintf(job.Output, "____ %s ____\n%s:%d: AssertionError\nFAIL %s\n", m[1], p, failed, id)
				exit = 1
			}
		}
	}
	return fakeOutcome{ExitCode: exit}, nil
}

func calcTestFile(tests ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(tests); i += 2 {
		fmt.Fprintf(&b, "def %s():\n    # expect %s\n\n", tests[i], tests[i+1])
	}
	return b.String()
}

func calcConfig(t *testing.T, hyps ...Hypothesis) (runConfig, *calcSandbox, *[]Event) {
	sb := &calcSandbox{}
	cfg, events := testConfig(t, sb, hyps...)
	cfg.Command = []string{"python3", "-m", "pytest", "-q"}
	os.MkdirAll(filepath.Join(cfg.Workspace, "tests"), 0o755)
	os.WriteFile(filepath.Join(cfg.Workspace, "calc.txt"), []byte("bug\n"), 0o644)
	os.WriteFile(filepath.Join(cfg.Workspace, "tests", "test_calc.py"), []byte(calcTestFile("test_one", "1")), 0o644)
	return cfg, sb, events
}

// The three candidates an agent writes (docs/judge.md, "Cross-examination") (a
// fix, a fix with a new test file, a fix with a test appended to the existing
// file) and an overfit that special-cases the failing input: every fix is
// judged by its code under the checkout's tests and none is disqualified; the
// overfit passes the same checkout tests, has the smallest diff and comes
// first in spec order, and ranks below every real fix because it fails their
// reproductions. Without the cross phase it wins.
func TestCrossOverfitRanksBelowRealFix(t *testing.T) {
	fixed := file("calc.txt", "fixed\n")
	hyps := []Hypothesis{
		hyp("baseline"),
		hyp("overfit", file("calc.txt", "overfit:1\n")),
		hyp("fix_newfile", fixed, file("tests/test_big.py", calcTestFile("test_two", "2"))),
		hyp("fix_append", fixed, file("tests/test_calc.py", calcTestFile("test_one", "1", "test_three", "3"))),
		hyp("fix", fixed),
	}
	cfg, sb, events := calcConfig(t, hyps...)
	rep := runFake(context.Background(), cfg)
	if rep.Winner == nil || *rep.Winner == "overfit" {
		t.Fatalf("winner %v, order %s", rep.Winner, names(rep))
	}
	m := byName(rep)
	o := m["overfit"]
	for _, n := range []string{"fix_newfile", "fix_append", "fix"} {
		r := m[n]
		if r.Status != StatusPassed || r.Disqualified != nil || r.Rank > o.Rank {
			t.Errorf("%s: status %s disqualified %q rank %d (overfit %d)", n, r.Status, str(r.Disqualified), r.Rank, o.Rank)
		}
		if r.Cross == nil || len(r.Cross.Failed) != 0 {
			t.Errorf("%s: cross %+v", n, r.Cross)
		}
	}
	if o.Status != StatusPassed || o.Cross == nil || len(o.Cross.Failed) != 2 || len(o.Cross.Passed) != 0 {
		t.Fatalf("overfit: status %s cross %+v", o.Status, o.Cross)
	}
	var failed []string
	for _, f := range o.Cross.Failed {
		failed = append(failed, f.From+":"+f.Test)
	}
	sort.Strings(failed)
	if want := "fix_append:tests/test_calc.py::test_three,fix_newfile:tests/test_big.py::test_two"; strings.Join(failed, ",") != want {
		t.Errorf("overfit failed %v, want %s", failed, want)
	}
	if got := m["fix_newfile"].ProposedTests; len(got) != 1 || got[0].Test != "test_two" || got[0].Reproduces == nil || !*got[0].Reproduces {
		t.Errorf("fix_newfile proposed %+v", got)
	}
	// Appended to an existing file: only the new function is proposed.
	if got := m["fix_append"].ProposedTests; len(got) != 1 || got[0].Test != "test_three" || got[0].Path != "tests/test_calc.py" {
		t.Errorf("fix_append proposed %+v", got)
	}
	if got := m["fix"].ProposedTests; got == nil || len(got) != 0 {
		t.Errorf("fix proposed %+v (want [])", got)
	}
	if j := m["fix_append"].JudgeEdits; strings.Join(j, ",") != "tests/test_calc.py" {
		t.Errorf("fix_append judge_edits %v", j)
	}
	// Each fix passes the other's reproduction: they still tie, and say so.
	if tw := m["fix"].TiesWith; strings.Join(tw, ",") != "fix_newfile,fix_append" || *rep.Winner != "fix_newfile" {
		t.Errorf("fix ties with %v, order %s", tw, names(rep))
	}
	// The judged runs held no test file of the candidates'.
	for _, j := range sb.jobs {
		if !strings.Contains(strings.Join(j.Command, " "), "::") {
			for _, f := range j.Hyp.Files {
				if f.Path == "tests/test_big.py" || f.Path == "tests/test_calc.py" {
					t.Errorf("judged run of %s got %s", j.Hyp.Name, f.Path)
				}
			}
		}
	}
	var b strings.Builder
	report.WriteText(&b, rep)
	for _, want := range []string{
		"cross: overfit fails 2 reproduction(s) of other candidates (fix_newfile: tests/test_big.py::test_two; fix_append: tests/test_calc.py::test_three)",
		"tie: fix_newfile, fix_append, fix have the same test outcomes and pass the same reproductions",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
	started, finished := 0, 0
	for _, ev := range *events {
		switch ev.Kind {
		case KindCrossStarted:
			started++
		case KindCrossFinished:
			finished++
			if ev.Tests == nil || len(ev.From) != 2 {
				t.Errorf("cross_finished %+v", ev)
			}
		}
	}
	// One group (no two proposals share a file), one job per distinct
	// code: the checkout's (the baseline's), the overfit's, and the three
	// fixes' (the same calc.txt: one job serves them all).
	if started != 3 || finished != 3 {
		t.Errorf("cross events: %d started, %d finished, want 3", started, finished)
	}
	if last := (*events)[len(*events)-1]; last.Kind != KindRunFinished {
		t.Errorf("last event %s", last.Kind)
	}

	// --no-cross: no cross jobs, cross null, the overfit's smaller, earlier
	// diff wins as before.
	cfg.NoCross = true
	sb.jobs = nil
	rep = runFake(context.Background(), cfg)
	if rep.Winner == nil || *rep.Winner != "overfit" || len(sb.jobs) != 5 || byName(rep)["overfit"].Cross != nil {
		t.Errorf("--no-cross: winner %v, %d jobs, cross %+v", rep.Winner, len(sb.jobs), byName(rep)["overfit"].Cross)
	}
}

// With only fix+test candidates there is a winner (docs/judge.md, "The judged
// run": a test edit no longer disqualifies by itself), --apply writes its code
// and not its test unless WithTests.
func TestCrossOnlyFixesWithTestsHaveAWinner(t *testing.T) {
	hyps := []Hypothesis{
		hyp("fix_newfile", file("calc.txt", "fixed\n"), file("tests/test_big.py", calcTestFile("test_two", "2"))),
		hyp("fix_append", file("calc.txt", "fixed\n"), file("tests/test_calc.py", calcTestFile("test_one", "1", "test_three", "3"))),
	}
	for _, withTests := range []bool{false, true} {
		cfg, _, _ := calcConfig(t, hyps...)
		cfg.Apply, cfg.WithTests = true, withTests
		rep := runFake(context.Background(), cfg)
		if rep.Winner == nil || *rep.Winner != "fix_newfile" {
			t.Fatalf("winner %v order %s", rep.Winner, names(rep))
		}
		want := "calc.txt"
		if withTests {
			want = "calc.txt,tests/test_big.py"
		}
		if strings.Join(rep.Applied, ",") != want {
			t.Errorf("with_tests %v: applied %v", withTests, rep.Applied)
		}
		_, err := os.Stat(filepath.Join(cfg.Workspace, "tests", "test_big.py"))
		if (err == nil) != withTests {
			t.Errorf("with_tests %v: test file written: %v", withTests, err == nil)
		}
		// Without a baseline hypothesis the checkout still runs their
		// tests: both reproduce.
		for _, r := range rep.Hypotheses {
			if len(r.ProposedTests) != 1 || r.ProposedTests[0].Reproduces == nil || !*r.ProposedTests[0].Reproduces {
				t.Errorf("%s proposed %+v", r.Name, r.ProposedTests)
			}
		}
	}
}

// A candidate that passes only with its own test changes fails its judged
// run, and its reason names the test it needed; with allow_test_edits it
// is judged as written and wins.
func TestJudgedRunNamesTheTestChangesItNeeded(t *testing.T) {
	hyps := []Hypothesis{
		hyp("baseline"),
		hyp("weaken", file("tests/test_calc.py", calcTestFile("test_one", "any"))),
	}
	cfg, _, _ := calcConfig(t, hyps...)
	rep := runFake(context.Background(), cfg)
	w := byName(rep)["weaken"]
	if rep.Winner != nil || w.Status != StatusFailed || w.Disqualified != nil {
		t.Fatalf("winner %v, weaken %s %q", rep.Winner, w.Status, str(w.Disqualified))
	}
	want := "judged without its own test changes: fails tests/test_calc.py::test_one under the checkout's tests; it changes tests/test_calc.py, and passes 1 of them only with those changes"
	if w.Reason == nil || !strings.Contains(*w.Reason, want) {
		t.Errorf("reason %q\nwant %q", str(w.Reason), want)
	}
	// Its changed test does not reproduce: it passes on the checkout too.
	if p := w.ProposedTests; len(p) != 1 || p[0].Reproduces == nil || *p[0].Reproduces {
		t.Errorf("proposed %+v", p)
	}
	cfg.AllowTestEdits = true
	rep = runFake(context.Background(), cfg)
	if rep.Winner == nil || *rep.Winner != "weaken" {
		t.Errorf("allow_test_edits: winner %v", rep.Winner)
	}
}

func TestSplitJudge(t *testing.T) {
	jd := newJudge(nil, []string{"repro/check.sh"})
	h := Hypothesis{Name: "h",
		Files: []File{file("lib/testing.py", "old"), file("pyproject.toml", "p"), file("repro/check.sh", "mine"), file("src/lib.py", "x"),
			file("testfoo.py", "new"), file("tests/test_x.py", "t"), file("web/util.test.ts", "t")},
		Deletes: []string{"src/old.py", "tests/test_old.py"},
		Common:  []File{file("repro/data.txt", "d")},
		// The spec's common check.sh, which the candidate rewrote.
		ReplacedCommon: []File{file("repro/check.sh", "judge")},
	}
	existed := func(p string) bool { return p == "lib/testing.py" || p == "src/old.py" || p == "tests/test_old.py" }
	s := splitJudge(jd, h, existed)
	var code []string
	for _, f := range s.code.Files {
		code = append(code, f.Path)
	}
	if strings.Join(code, ",") != "lib/testing.py,src/lib.py" || strings.Join(s.code.Deletes, ",") != "src/old.py" {
		t.Errorf("code %v deletes %v", code, s.code.Deletes)
	}
	if want := "pyproject.toml,repro/check.sh,testfoo.py,tests/test_old.py,tests/test_x.py,web/util.test.ts"; strings.Join(s.paths, ",") != want {
		t.Errorf("judge %v\nwant %s", s.paths, want)
	}
	jh := s.code.WithCommon()
	var got []string
	for _, f := range jh.Files {
		got = append(got, f.Path+"="+string(f.Content))
	}
	if strings.Join(got, ",") != "lib/testing.py=old,repro/check.sh=judge,repro/data.txt=d,src/lib.py=x" {
		t.Errorf("judged job files %v", got)
	}
}

// A base chain's test edits are the candidate's too (its Files hold them):
// they are split off the same way, and a patch's files are split after
// it is resolved.
func TestSplitJudgeAfterPatchAndBase(t *testing.T) {
	ws := makeTree(t, map[string]string{"src/lib.py": "a = 1\n", "tests/test_lib.py": "def test_a():\n    assert True\n"})
	doc := `{"hypotheses": [{"name": "p", "patch": "--- a/src/lib.py\n+++ b/src/lib.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n--- a/tests/test_lib.py\n+++ b/tests/test_lib.py\n@@ -1,2 +1,5 @@\n def test_a():\n     assert True\n+\n+def test_b():\n+    assert False\n"}]}`
	hyps, err := load(t, doc, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	orig := checkout.ReadOriginals(ws, hyps)
	s := splitJudge(newJudge(nil, nil), hyps[0], existedIn(orig))
	if len(s.code.Files) != 1 || s.code.Files[0].Path != "src/lib.py" || strings.Join(s.paths, ",") != "tests/test_lib.py" {
		t.Errorf("code %+v judge %v", s.code.Files, s.paths)
	}
	if p := proposedTests(s.files, orig); len(p) != 1 || p[0].name != "test_b" {
		t.Errorf("proposed %+v", p)
	}
}

func TestProposedTestsByLanguage(t *testing.T) {
	orig := map[string]FileState{
		"pkg/calc_test.go": {Exists: true, Content: []byte("package pkg\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal()\n\t}\n}\n")},
		"tests/test_c.py":  {Exists: true, Content: []byte("import pytest\n\nclass TestC:\n    def test_a(self):\n        assert 1\n\n    def test_b(self):\n        assert 2\n")},
		"web/a.test.ts":    {Exists: true, Content: []byte("describe('a', () => {\n  it('adds', () => { expect(add(1, 2)).toBe(3) })\n})\n")},
	}
	files := []File{
		file("pkg/calc_test.go", "package pkg\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal()\n\t}\n}\n\nfunc TestAddNeg(t *testing.T) {\n\tif Add(-1, -2) != -3 {\n\t\tt.Fatal()\n\t}\n}\n"),
		file("tests/test_c.py", "import pytest\n\nclass TestC:\n    def test_a(self):\n        assert 1\n\n    @pytest.mark.parametrize('x', [1, 2])\n    def test_b(self, x):\n        assert x\n"),
		file("web/a.test.ts", "describe('a', () => {\n  it('adds', () => { expect(add(1, 2)).toBe(3) })\n  it(\"adds negatives\", () => { expect(add(-1, -2)).toBe(-3) })\n})\n"),
		file("tests/conftest.py", "def test_not_a_test(): pass\n"),
	}
	var got []string
	for _, p := range proposedTests(files, orig) {
		got = append(got, p.String())
	}
	want := "pkg/calc_test.go::TestAddNeg,tests/test_c.py::TestC::test_b,web/a.test.ts > adds negatives"
	if strings.Join(got, ",") != want {
		t.Errorf("proposed %v\nwant %s", got, want)
	}
}

func TestProposedTestMatchesRunnerNames(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "go.mod"), []byte("module example.com/m\n"), 0o644)
	mods := newGoModules(dir)
	for _, c := range []struct {
		t     proposedTest
		name  string
		match bool
	}{
		{proposedTest{"tests/test_c.py", "TestC::test_b", "py"}, "tests/test_c.py::TestC::test_b[1]", true},
		{proposedTest{"tests/test_c.py", "test_b", "py"}, "tests/test_c.py::test_bb", false},
		{proposedTest{"tests/test_c.py", "test_b", "py"}, "tests/test_c.py::test_b", true},
		{proposedTest{"pkg/tests/test_c.py", "test_b", "py"}, "tests/test_c.py::test_b", true},      // pytest's rootdir is pkg/
		{proposedTest{"tests/test_c.py", "TestC::test_b", "py"}, "tests.test_c.TestC.test_b", true}, // unittest
		{proposedTest{"tests/test_c.py", "TestC::test_b", "py"}, "other.TestC.test_b", false},
		{proposedTest{"sub/calc/calc_test.go", "TestAdd", "go"}, "example.com/m/calc.TestAdd", true},
		{proposedTest{"sub/calc/calc_test.go", "TestAdd", "go"}, "example.com/m/calc.TestAdd/neg", true},
		{proposedTest{"sub/calc/calc_test.go", "TestAdd", "go"}, "example.com/m/calc.TestAddNeg", false},
		{proposedTest{"web/a.test.ts", "adds", "js"}, "web/a.test.ts > a > adds", true},
		{proposedTest{"web/a.test.ts", "adds", "js"}, "web/a.test.ts › a › adds", true},
		{proposedTest{"web/a.test.ts", "adds", "js"}, "web/b.test.ts > a > adds", false},
	} {
		if got := c.t.matches(c.name, mods); got != c.match {
			t.Errorf("%s matches %q: %v", c.t, c.name, got)
		}
	}
	if !(proposedTest{"sub/calc/calc_test.go", "TestAdd", "go"}).unitFailed("example.com/m/calc", mods) {
		t.Errorf("a package's build failure is not its tests' failure")
	}
}

func TestSelectTests(t *testing.T) {
	py := []proposedTest{{"tests/test_c.py", "TestC::test_b", "py"}, {"tests/test_d.py", "test_x", "py"}}
	goT := []proposedTest{{"calc/calc_test.go", "TestAdd", "go"}}
	js := []proposedTest{{"web/a.test.ts", "adds", "js"}}
	for _, c := range []struct {
		argv  []string
		tests []proposedTest
		cwd   string
		want  string // "" : not selectable
	}{
		{[]string{"python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", "tests/"}, py, "",
			"python3 -m pytest -q -p no:cacheprovider -rA --continue-on-collection-errors tests/test_c.py::TestC::test_b tests/test_d.py::test_x"},
		{[]string{"pytest", "-k", "slow", "tests"}, py, "", "pytest -rA --continue-on-collection-errors tests/test_c.py::TestC::test_b tests/test_d.py::test_x"},
		{[]string{"pytest"}, []proposedTest{{"app/tests/test_c.py", "test_b", "py"}}, "app", "pytest -rA --continue-on-collection-errors tests/test_c.py::test_b"},
		{[]string{"go", "test", "-count=1", "./..."}, goT, "", "go test -count=1 -v -run ^(TestAdd)$ ./calc"},
		{[]string{"go", "test", "-json", "-run", "TestOld", "./..."}, goT, "", "go test -json -run ^(TestAdd)$ ./calc"},
		{[]string{"npx", "vitest", "run"}, js, "", "npx vitest run --reporter=verbose web/a.test.ts"},
		{[]string{"node_modules/.bin/jest", "--ci"}, js, "", "node_modules/.bin/jest --ci --verbose web/a.test.ts"},
		{[]string{"node", "node_modules/vitest/vitest.mjs", "run", "--reporter=verbose", "calc"}, js, "", "node node_modules/vitest/vitest.mjs run --reporter=verbose web/a.test.ts"},
		{[]string{"node", "node_modules/jest/bin/jest.js", "--ci"}, js, "", "node node_modules/jest/bin/jest.js --ci --verbose web/a.test.ts"},
		{[]string{"node", "--test"}, js, "", ""},
		{[]string{"make", "test"}, py, "", ""},
		{[]string{"sh", "-c", "pytest -q"}, py, "", ""},
		{[]string{"npm", "test"}, js, "", ""},
	} {
		got, ok := selectTests(c.argv, c.tests, c.cwd)
		s := strings.Join(got, " ")
		if !ok {
			s = ""
		}
		if s != c.want {
			t.Errorf("%v:\n got %q\nwant %q", c.argv, s, c.want)
		}
	}
	// Tests of another language than the runner's: nothing to run.
	if got, ok := selectTests([]string{"go", "test", "./..."}, py, ""); !ok || got != nil {
		t.Errorf("go test with Python tests: %v %v", got, ok)
	}
}

// Proposals that would disturb each other run apart: the same file, runner
// configuration, one Go package.
func TestGroupProposals(t *testing.T) {
	prop := func(name string, paths ...string) *crossProposal {
		p := &crossProposal{name: name, split: judgeSplit{paths: paths}}
		for _, q := range paths {
			if runnerConfigs[filepath.Base(q)] {
				p.isolate = true
			}
		}
		return p
	}
	props := []*crossProposal{
		prop("a", "tests/test_x.py"), prop("b", "tests/test_y.py"), prop("c", "tests/test_x.py"),
		prop("d", "conftest.py", "tests/test_z.py"), prop("e", "calc/a_test.go"), prop("f", "calc/b_test.go"),
	}
	var got []string
	for _, g := range groupProposals(props, nil) {
		var ns []string
		for _, p := range g {
			ns = append(ns, p.name)
		}
		got = append(got, strings.Join(ns, "+"))
	}
	if strings.Join(got, " ") != "a+b+e c+f d" {
		t.Errorf("groups %v", got)
	}
}

// A proposal whose test hangs must not cost the others their outcomes:
// its group's job times out (bounded by the judged runs, not the run's
// timeout), and each proposal of the group then runs alone on that target;
// the overfit still fails the real fix's reproduction.
func TestCrossHangingProposalCostsOnlyItself(t *testing.T) {
	defer func(d time.Duration) { minCrossTimeout = d }(minCrossTimeout)
	minCrossTimeout = 300 * time.Millisecond
	fixed := file("calc.txt", "fixed\n")
	cfg, _, events := calcConfig(t,
		hyp("baseline"),
		hyp("overfit", file("calc.txt", "overfit:1\n"), file("tests/test_hang.py", calcTestFile("test_forever", "hang"))),
		hyp("fix_newfile", fixed, file("tests/test_big.py", calcTestFile("test_two", "2"))),
	)
	start := time.Now()
	rep := runFake(context.Background(), cfg)
	if time.Since(start) > 20*time.Second {
		t.Errorf("the run took %s: a hanging proposal held it", time.Since(start))
	}
	m := byName(rep)
	if rep.Winner == nil || *rep.Winner != "fix_newfile" {
		t.Fatalf("winner %v order %s", rep.Winner, names(rep))
	}
	if o := m["overfit"].Cross; o == nil || len(o.Failed) != 1 || o.Failed[0].From != "fix_newfile" {
		t.Errorf("overfit cross %+v", o)
	}
	if p := m["fix_newfile"].ProposedTests; len(p) != 1 || p[0].Reproduces == nil || !*p[0].Reproduces {
		t.Errorf("fix_newfile proposed %s", fmt.Sprint(p))
	}
	if p := m["overfit"].ProposedTests; len(p) != 1 || p[0].Reproduces != nil {
		t.Errorf("overfit's hanging test: %+v (want reproduces null)", p)
	}
	timedOut := 0
	for _, ev := range *events {
		if ev.Kind == KindCrossFinished && strings.HasPrefix(ev.Text, "did not finish") {
			timedOut++
		}
	}
	if timedOut == 0 {
		t.Errorf("no cross job timed out")
	}
}

// A fix that appends a test and still fails the checkout's own test in
// that file failed on its code: no note says it needed its test changes.
// One that deleted the failing test's file did need it.
func TestJudgedNoteOnlyForTestsItChanged(t *testing.T) {
	cfg, _, _ := calcConfig(t,
		hyp("baseline"),
		hyp("wrong_append", file("calc.txt", "overfit:7\n"), file("tests/test_calc.py", calcTestFile("test_one", "1", "test_seven", "7"))),
		hyp("delete", Hypothesis{}.Files...),
	)
	cfg.Hyps[2].Deletes = []string{"tests/test_calc.py"}
	rep := runFake(context.Background(), cfg)
	m := byName(rep)
	if w := m["wrong_append"]; w.Status != StatusFailed || (w.Reason != nil && strings.Contains(*w.Reason, judgedNotePrefix)) {
		t.Errorf("wrong_append: %s %q", w.Status, str(w.Reason))
	}
	if d := m["delete"]; d.Status != StatusFailed || d.Reason == nil || !strings.Contains(*d.Reason, judgedNotePrefix+"fails tests/test_calc.py::test_one") {
		t.Errorf("delete: %s %q", d.Status, str(d.Reason))
	}
}

// A reproduction only its proposer passes demotes nobody. The overfit
// (first in spec order, as small a diff) brings a test asserting its own
// behaviour where the real fix differs (calc(2) stays "bug"): the fix
// fails it, but elsewhere than the checkout fails it, and nobody else
// passes it, so it is listed under unweighed and costs the fix nothing.
// The fix's own regression test exposes the overfit, which fails it where
// the checkout does: that weighs, and the fix wins. Before, each failed
// the other's test, they tied, and the overfit won on spec order.
func TestCrossSelfServingReproductionDemotesNobody(t *testing.T) {
	cfg, _, _ := calcConfig(t,
		hyp("baseline"),
		hyp("overfit", file("calc.txt", "overfit:1\n"), file("tests/test_self.py", calcTestFile("test_self", "1,bug:2"))),
		hyp("fix", file("calc.txt", "fixed\n"), file("tests/test_two.py", calcTestFile("test_two", "2"))),
	)
	rep := runFake(context.Background(), cfg)
	m := byName(rep)
	if rep.Winner == nil || *rep.Winner != "fix" {
		t.Fatalf("winner %v, want fix (overfit cross %+v, fix cross %+v)", rep.Winner, m["overfit"].Cross, m["fix"].Cross)
	}
	if c := m["fix"].Cross; c == nil || len(c.Failed) != 0 || len(c.Unweighed) != 1 || c.Unweighed[0].From != "overfit" {
		t.Errorf("fix cross %+v, want the overfit's test unweighed", c)
	}
	if c := m["overfit"].Cross; c == nil || len(c.Failed) != 1 || c.Failed[0].From != "fix" {
		t.Errorf("overfit cross %+v, want the fix's test weighed", c)
	}
}

// The two must-holds. A general fix beats a narrow one whose test it
// passes: the narrow fix fails the general one's test where the checkout
// does. And where nobody says where a test failed, a claim still weighs
// against a candidate whose own reproductions the proposer passes.
func TestCrossGeneralFixBeatsNarrowWhoseTestItPasses(t *testing.T) {
	cfg, _, _ := calcConfig(t,
		hyp("baseline"),
		hyp("narrow", file("calc.txt", "overfit:1\n"), file("tests/test_n.py", calcTestFile("test_n", "1"))),
		hyp("general", file("calc.txt", "fixed\n"), file("tests/test_g.py", calcTestFile("test_g", "2"))),
	)
	rep := runFake(context.Background(), cfg)
	m := byName(rep)
	if rep.Winner == nil || *rep.Winner != "general" || len(m["narrow"].Cross.Failed) != 1 || len(m["general"].Cross.Failed) != 0 {
		t.Fatalf("winner %v, narrow cross %+v, general cross %+v", rep.Winner, m["narrow"].Cross, m["general"].Cross)
	}
	// Without locations: the general fix passes the narrow one's test, so
	// its test weighs against the narrow one; the narrow one's claim
	// against a candidate whose test it fails would not.
	rs := []*result{
		{Result: &Result{Name: "narrow", Status: StatusPassed, Cross: &Cross{Failed: []CrossRef{{From: "general", Test: "g"}}},
			ProposedTests: []ProposedTest{{Path: "tests/test_n.py", Test: "test_n", Reproduces: ptr(true)}}}},
		{Result: &Result{Name: "general", Status: StatusPassed, Cross: &Cross{Failed: []CrossRef{{From: "narrow", Test: "tests/test_n.py::test_n"}}},
			ProposedTests: []ProposedTest{{Path: "tests/test_g.py", Test: "g", Reproduces: ptr(true)}}}},
	}
	out := map[string]crossOutcome{"general/narrow/tests/test_n.py::test_n": crossFail, "narrow/general/g": crossFail}
	weighCross(rs, func(target, proposer, test string) crossOutcome { return out[target+"/"+proposer+"/"+test] }, nil)
	if len(rs[0].Cross.Failed) != 0 || len(rs[1].Cross.Failed) != 0 {
		t.Errorf("each fails the other's: neither weighs (narrow %+v, general %+v)", rs[0].Cross, rs[1].Cross)
	}
	out["general/narrow/tests/test_n.py::test_n"] = crossPass
	rs[1].Cross = &Cross{Failed: []CrossRef{}}
	rs[0].Cross = &Cross{Failed: []CrossRef{{From: "general", Test: "g"}}}
	weighCross(rs, func(target, proposer, test string) crossOutcome { return out[target+"/"+proposer+"/"+test] }, nil)
	if len(rs[0].Cross.Failed) != 1 {
		t.Errorf("the general fix passes the narrow one's test: its own weighs (narrow %+v)", rs[0].Cross)
	}
}

func ptr[T any](v T) *T { return &v }

// A candidate that changed only tests (weakening one) has the checkout's
// code: its proposals run on the checkout, where they cannot fail and pass
// on the same code, so none reproduces and no other target runs them. Here
// the weakening and the fix's appended test are two groups (the same file,
// written differently): the checkout runs both, the fix's code only the
// fix's, 3 jobs where 4 ran before; verdicts, notes and reproduces as
// before.
func TestCrossTestOnlyProposalsRunOnTheCheckoutAlone(t *testing.T) {
	fixed := file("calc.txt", "fixed\n")
	hyps := []Hypothesis{
		hyp("baseline"),
		hyp("weaken", file("tests/test_calc.py", calcTestFile("test_one", "any"))),
		hyp("fix_append", fixed, file("tests/test_calc.py", calcTestFile("test_one", "1", "test_three", "3"))),
		hyp("fix", fixed),
	}
	cfg, _, events := calcConfig(t, hyps...)
	rep := runFake(context.Background(), cfg)
	m := byName(rep)
	if rep.Winner == nil || *rep.Winner != "fix_append" {
		t.Fatalf("winner %v, order %s", rep.Winner, names(rep))
	}
	w := m["weaken"]
	if w.Status != StatusFailed || w.Reason == nil || !strings.Contains(*w.Reason, "passes 1 of them only with those changes") {
		t.Errorf("weaken: %s %q", w.Status, str(w.Reason))
	}
	if p := w.ProposedTests; len(p) != 1 || p[0].Reproduces == nil || *p[0].Reproduces {
		t.Errorf("weaken proposed %+v", p)
	}
	if p := m["fix_append"].ProposedTests; len(p) != 1 || p[0].Reproduces == nil || !*p[0].Reproduces {
		t.Errorf("fix_append proposed %+v", p)
	}
	if c := m["fix"].Cross; c == nil || len(c.Passed) != 1 || len(c.Failed) != 0 {
		t.Errorf("fix cross %+v", c)
	}
	started := 0
	for _, ev := range *events {
		if ev.Kind == KindCrossStarted {
			started++
		}
	}
	if started != 3 {
		t.Errorf("%d cross jobs, want 3 (the checkout's two groups, the fix's code on its own)", started)
	}
}
