package judge

import (
	"github.com/shadow-dev/shadow/engine/spec"

	"github.com/shadow-dev/shadow/engine/report"

	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// scriptSandbox runs each hypothesis by a per-name script: what it prints,
// its exit code, the paths its "command" changes at run time, and for a
// flaky one a per-hypothesis run counter outside the job (as a candidate's
// code would keep one in a file outside the workspace).
type scriptSandbox struct {
	mu      sync.Mutex
	out     map[string]string
	exit    map[string]int
	changed map[string][]string
	// failEvery: the hypothesis prints flakyOut and exits 1 on every
	// failEvery-th run (2 = every second run).
	failEvery map[string]int
	flakyOut  map[string]string
	runs      map[string]int
	status    map[string]string // "error": the sandbox fails; "block": wait for ctx
	seen      map[string]Hypothesis
}

func (s *scriptSandbox) Mode() Mode     { return "fake" }
func (s *scriptSandbox) Parallel() bool { return true }
func (s *scriptSandbox) Run(ctx context.Context, job fakeJob) (fakeOutcome, error) {
	name := job.Hyp.Name
	s.mu.Lock()
	if s.runs == nil {
		s.runs, s.seen = map[string]int{}, map[string]Hypothesis{}
	}
	s.runs[name]++
	n := s.runs[name]
	if _, cross := s.seen[name]; !cross { // the judged run, not a cross-phase job after it
		s.seen[name] = job.Hyp
	}
	s.mu.Unlock()
	switch s.status[name] {
	case "error":
		return fakeOutcome{}, fmt.Errorf("sandbox broke")
	case "block":
		<-ctx.Done()
		return fakeOutcome{ExitCode: -1, Signal: "SIGKILL"}, nil
	}
	if k := s.failEvery[name]; k > 0 && n%k == 0 {
		job.Output.Write([]byte(s.flakyOut[name]))
		return fakeOutcome{ExitCode: 1, Changed: s.changed[name]}, nil
	}
	job.Output.Write([]byte(s.out[name]))
	return fakeOutcome{ExitCode: s.exit[name], Changed: s.changed[name]}, nil
}

func byName(rep *Report) map[string]*Result {
	m := map[string]*Result{}
	for _, h := range rep.Hypotheses {
		m[h.Name] = h
	}
	return m
}

func names(rep *Report) string {
	var out []string
	for _, h := range rep.Hypotheses {
		out = append(out, h.Name)
	}
	return strings.Join(out, ",")
}

func ok(n int, prefix string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "ok %s%d\n", prefix, i)
	}
	return b.String()
}

// The cheats that change the judge (docs/report.md, "The judge") against
// a baseline of 5 tests, one failing: each
// passes, none may win; the real fix does, with its fixed test named.
func TestCheatsAreDisqualified(t *testing.T) {
	base := ok(4, "t") + "FAIL bug\n"
	sb := &scriptSandbox{
		out: map[string]string{
			"baseline": base, "fix": ok(4, "t") + "ok bug\n",
			"weaken":  base,                    // assertions removed in the test file: judged without it, the bug shows
			"skip":    ok(4, "t"),              // the failing test no longer runs
			"runtime": ok(4, "t") + "ok bug\n", // rewrites the test while running
			"rename":  ok(4, "t") + "ok bug_renamed\n",
			"noisy":   ok(4, "t") + "ok bug\n", // a fix whose run writes only caches
		},
		exit: map[string]int{"baseline": 1, "weaken": 1},
		changed: map[string][]string{
			"runtime": {"tests/test_bug.py"},
			"noisy":   {"tests/__pycache__/test_bug.cpython-311.pyc", ".pytest_cache/v/cache/lastfailed", "out.log"},
		},
	}
	src := file("src/lib.py", "fixed\n")
	cfg, _ := testConfig(t, sb,
		hyp("baseline"),
		hyp("weaken", file("tests/test_bug.py", "def test_bug(): pass\n")),
		hyp("skip", src),
		hyp("runtime", file("src/lib.py", "x\n")),
		hyp("rename", src),
		hyp("fix", file("src/lib.py", "a longer fix\nover two lines\n")),
		hyp("noisy", file("src/lib.py", "a longer fix\nover two lines\nand three\n")),
	)
	rep := runFake(context.Background(), cfg)
	if rep.Winner == nil || *rep.Winner != "fix" {
		t.Fatalf("winner %v, order %s", rep.Winner, names(rep))
	}
	m := byName(rep)
	if got := strings.Join(m["fix"].Fixed, ","); got != "bug" {
		t.Errorf("fix fixed %q", got)
	}
	if w := m["weaken"]; w.Status != StatusFailed || w.Disqualified != nil || strings.Join(w.JudgeEdits, ",") != "tests/test_bug.py" {
		t.Errorf("weaken: status %s disqualified %q judge_edits %v", w.Status, str(w.Disqualified), w.JudgeEdits)
	}
	if len(sb.seen["weaken"].Files) != 0 {
		t.Errorf("weaken's judged run got its own test file: %+v", sb.seen["weaken"].Files)
	}
	for name, want := range map[string]string{
		"skip":    "runs 1 fewer test than the baseline",
		"runtime": "its command changed tests/test_bug.py during the run",
		"rename":  "does not run 1 of the baseline's tests (bug)",
	} {
		r := m[name]
		if r.Disqualified == nil || !strings.Contains(*r.Disqualified, want) {
			t.Errorf("%s: disqualified %q, want %q", name, str(r.Disqualified), want)
		}
		if r.Rank <= m["fix"].Rank || r.Status != StatusPassed {
			t.Errorf("%s: rank %d status %s", name, r.Rank, r.Status)
		}
	}
	if m["noisy"].Disqualified != nil || len(m["noisy"].EditsTests) != 0 {
		t.Errorf("caches written at run time disqualified noisy: %v %v", m["noisy"].EditsTests, *m["noisy"].Disqualified)
	}
	if e := m["weaken"].EditsTests; len(e) != 1 || e[0] != "tests/test_bug.py" {
		t.Errorf("weaken edits_tests %v", e)
	}
	if l := m["skip"].LostTests; l == nil || *l != 1 {
		t.Errorf("skip lost_tests %v", l)
	}
	if l := m["baseline"].LostTests; l == nil || *l != 0 {
		t.Errorf("baseline lost_tests %v", l)
	}

	// --allow-test-edits: judged as written, the smallest passing diff
	// wins, changes and all.
	cfg.AllowTestEdits = true
	sb.out["weaken"], sb.exit["weaken"] = ok(4, "t")+"ok bug\n", 0
	rep = runFake(context.Background(), cfg)
	if rep.Winner == nil || *rep.Winner != "weaken" {
		t.Errorf("with allow_test_edits winner %v, order %s", rep.Winner, names(rep))
	}
	if m := byName(rep); m["weaken"].Disqualified != nil || len(m["weaken"].EditsTests) != 1 {
		t.Errorf("allowed: disqualified %v edits %v", m["weaken"].Disqualified, m["weaken"].EditsTests)
	}
}

// Only disqualified candidates pass: no winner, and the text says why.
func TestOnlyDisqualifiedPassIsNoWinner(t *testing.T) {
	sb := &scriptSandbox{out: map[string]string{"baseline": "ok a\nFAIL b\n", "cheat": "ok a\n"}, exit: map[string]int{"baseline": 1},
		changed: map[string][]string{"cheat": {"tests/b_test.go"}}}
	cfg, _ := testConfig(t, sb, hyp("baseline"), hyp("cheat", file("src/b.go", "x")))
	rep := runFake(context.Background(), cfg)
	if rep.Winner != nil {
		t.Fatalf("winner %s", *rep.Winner)
	}
	var b strings.Builder
	report.WriteText(&b, rep)
	if !strings.Contains(b.String(), "no winner: only disqualified hypotheses passed (cheat)") ||
		!strings.Contains(b.String(), "[disqualified: its command changed tests/b_test.go during the run; runs 1 fewer test than the baseline (b)]") {
		t.Errorf("text:\n%s", b.String())
	}
}

// A command that exits 0 after printing failures has failed.
func TestExitZeroWithFailuresIsFailed(t *testing.T) {
	sb := &scriptSandbox{out: map[string]string{"exit0": "ok a\nFAIL b\n", "real": "ok a\nok b\n"}}
	cfg, _ := testConfig(t, sb, hyp("exit0", file("a.py", "os._exit(0)\n")), hyp("real", file("a.py", "fix\nfix\n")))
	rep := runFake(context.Background(), cfg)
	m := byName(rep)
	if m["exit0"].Status != StatusFailed || *m["exit0"].ExitCode != 0 {
		t.Errorf("exit0: %s", m["exit0"].Status)
	}
	if rep.Winner == nil || *rep.Winner != "real" {
		t.Errorf("winner %v", rep.Winner)
	}
	var b strings.Builder
	report.WriteText(&b, rep)
	if !strings.Contains(b.String(), "[exit 0 despite failing tests: failed]") {
		t.Errorf("text:\n%s", b.String())
	}
}

// The tiers: passed, passed but disqualified, failed with counts, no
// counts (and no tests where others ran some), then timed out, error and
// cancelled, whatever their counts.
func TestRankTiers(t *testing.T) {
	res := func(name, status string, tests *Tests, changed int) *result {
		return &result{Result: &Result{Name: name, Status: status, Tests: tests, ChangedLines: changed}}
	}
	counts := func(p, f int) *Tests { return &Tests{Passed: p, Failed: f} }
	dq := res("disqualified", StatusPassed, counts(9, 0), 1)
	dq.judgeChanged = []string{"tests/x_test.go"}
	rs := []*result{
		res("cancelled", StatusCancelled, nil, 0),
		res("error", StatusError, nil, 0),
		res("timed-out", StatusTimedOut, counts(8, 0), 0),
		res("no-tests-passed", StatusPassed, counts(0, 0), 0),
		res("no-counts-failed", StatusFailed, nil, 0),
		res("failed-many", StatusFailed, counts(5, 4), 0),
		res("failed-one", StatusFailed, counts(8, 1), 9),
		dq,
		res("passed-no-counts", StatusPassed, nil, 5),
		res("passed", StatusPassed, counts(9, 0), 3),
	}
	hyps := make([]Hypothesis, len(rs))
	for i, r := range rs {
		hyps[i] = Hypothesis{Name: r.Name, Deletes: []string{"x"}}
	}
	rank(rs, hyps)
	var got []string
	for _, r := range rs {
		got = append(got, r.Name)
	}
	want := "passed,passed-no-counts,disqualified,failed-one,failed-many,no-tests-passed,no-counts-failed,timed-out,cancelled,error"
	if strings.Join(got, ",") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, ","), want)
	}
	if w := Leader(rs); w == nil || w.Name != "passed" {
		t.Errorf("leader %v", w)
	}
	for _, r := range rs {
		if r.LostTests != nil {
			t.Errorf("%s: lost_tests %d without a baseline", r.Name, *r.LostTests)
		}
		if r.Fixed != nil || r.Broken != nil {
			t.Errorf("%s: fixed %v broken %v without a baseline (want null)", r.Name, r.Fixed, r.Broken)
		}
	}
	if rs[5].Disqualified == nil || *rs[5].Disqualified != "runs no tests" {
		t.Errorf("no-tests-passed: %v", rs[5].Disqualified)
	}
	// Only a no-tests run passes: no winner.
	only := []*result{res("none", StatusPassed, counts(0, 0), 0), res("ran", StatusFailed, counts(3, 1), 0)}
	rank(only, []Hypothesis{{Name: "none", Deletes: []string{"x"}}, {Name: "ran", Deletes: []string{"x"}}})
	if only[0].Name != "ran" || Leader(only) != nil {
		t.Errorf("a run with no tests ranked above one that ran tests: %s first, leader %v", only[0].Name, Leader(only))
	}
}

// Runners that name only failures (pytest -q): a test failing in the
// baseline is fixed where the candidate ran at least as many tests and does
// not name it; where it ran fewer, fixed is unknown (null), never [].
func TestFixedWhereOnlyFailuresAreNamed(t *testing.T) {
	fail := func(p int, names ...string) *result {
		r := &result{Result: &Result{Status: StatusFailed, Tests: &Tests{Passed: p, Failed: len(names)}}, failedTests: set(names)}
		if len(names) == 0 {
			r.Status = StatusPassed
		}
		return r
	}
	base := fail(470, "t::a", "t::b")
	base.Name = "baseline"
	fix := fail(472)
	fix.Name = "fix"
	half := fail(471, "t::b", "t::c")
	half.Name = "half"
	fewer := fail(300)
	fewer.Name = "fewer"
	rs := []*result{base, fix, half, fewer}
	rank(rs, []Hypothesis{{Name: "baseline"}, {Name: "fix", Deletes: []string{"x"}}, {Name: "half", Deletes: []string{"x"}}, {Name: "fewer", Deletes: []string{"x"}}})
	if strings.Join(fix.Fixed, ",") != "t::a,t::b" || fix.Broken == nil || len(fix.Broken) != 0 {
		t.Errorf("fix: fixed %v broken %v", fix.Fixed, fix.Broken)
	}
	if strings.Join(half.Fixed, ",") != "t::a" || strings.Join(half.Broken, ",") != "t::c" {
		t.Errorf("half: fixed %v broken %v", half.Fixed, half.Broken)
	}
	if fewer.Fixed != nil {
		t.Errorf("fewer: fixed %v, want null (it ran 172 fewer tests)", fewer.Fixed)
	}
	if fewer.LostTests == nil || *fewer.LostTests != 172 {
		t.Errorf("fewer lost %v", fewer.LostTests)
	}
	b, _ := json.Marshal(fewer)
	if !strings.Contains(string(b), `"fixed":null`) || !strings.Contains(string(b), `"broken":[]`) {
		t.Errorf("json %s", b)
	}
}

// A test collected twice keeps the totals; by name one test is lost.
func TestCollectedTwiceLosesByName(t *testing.T) {
	base := &result{Result: &Result{Name: "baseline", Status: StatusFailed, Tests: &Tests{Passed: 2, Failed: 1}}, passedTests: set([]string{"a", "b"}), failedTests: set([]string{"c"})}
	dup := &result{Result: &Result{Name: "dup", Status: StatusPassed, Tests: &Tests{Passed: 3}}, passedTests: set([]string{"a", "b"})}
	rs := []*result{base, dup}
	rank(rs, []Hypothesis{{Name: "baseline"}, {Name: "dup", Deletes: []string{"x"}}})
	if dup.LostTests == nil || *dup.LostTests != 1 || dup.Disqualified == nil || !strings.Contains(*dup.Disqualified, "(c)") {
		t.Errorf("dup: lost %v disqualified %v", dup.LostTests, dup.Disqualified)
	}
	// A collection error named by its file is not lost once its tests run.
	base = &result{Result: &Result{Name: "baseline", Status: StatusFailed, Tests: &Tests{Passed: 1, Failed: 1}}, passedTests: set([]string{"t/a.py::x"}), failedTests: set([]string{"t/b.py"})}
	fix := &result{Result: &Result{Name: "fix", Status: StatusPassed, Tests: &Tests{Passed: 3}}, passedTests: set([]string{"t/a.py::x", "t/b.py::y", "t/b.py::z"})}
	rs = []*result{base, fix}
	rank(rs, []Hypothesis{{Name: "baseline"}, {Name: "fix", Deletes: []string{"x"}}})
	if *fix.LostTests != 0 || fix.Disqualified != nil {
		t.Errorf("fix of a collection error: lost %d disqualified %v", *fix.LostTests, fix.Disqualified)
	}
}

func TestTies(t *testing.T) {
	sb := &scriptSandbox{out: map[string]string{"a": "ok x\nok y\n", "b": "ok x\nok y\n", "c": "ok x\nok y\nok z\n", "d": "FAIL x\n"}, exit: map[string]int{"d": 1}}
	cfg, _ := testConfig(t, sb, hyp("a", file("a", "1")), hyp("b", file("a", "2\n3\n")), hyp("c", file("a", "3")), hyp("d", file("a", "4")))
	rep := runFake(context.Background(), cfg)
	m := byName(rep)
	if strings.Join(m["a"].TiesWith, ",") != "b" || strings.Join(m["b"].TiesWith, ",") != "a" || len(m["c"].TiesWith) != 0 || len(m["d"].TiesWith) != 0 {
		t.Errorf("ties a %v b %v c %v d %v", m["a"].TiesWith, m["b"].TiesWith, m["c"].TiesWith, m["d"].TiesWith)
	}
	var b strings.Builder
	report.WriteText(&b, rep)
	if !strings.Contains(b.String(), "tie: a, b have the same test outcomes") || !strings.Contains(b.String(), "[ties with b]") {
		t.Errorf("text:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "lost tests not checked: no baseline") {
		t.Errorf("text does not say lost tests were not checked:\n%s", b.String())
	}
}

// The lucky candidate fails every second run and has the smaller diff:
// without --confirm it wins; with --confirm 2 it fails a rerun, the stable
// one is confirmed, the flaky test is named, and the reruns flow through
// the event stream with their attempt number.
func TestConfirmCatchesLuck(t *testing.T) {
	mk := func() *scriptSandbox {
		return &scriptSandbox{
			out:       map[string]string{"baseline": "ok a\nFAIL b\n", "lucky": "ok a\nok b\n", "stable": "ok a\nok b\n"},
			exit:      map[string]int{"baseline": 1},
			failEvery: map[string]int{"lucky": 2},
			flakyOut:  map[string]string{"lucky": "ok a\nFAIL b\n"},
		}
	}
	hyps := []Hypothesis{hyp("baseline"), hyp("lucky", file("lib.rs", "x\n")), hyp("stable", file("lib.rs", "a\nb\nc\n"))}
	cfg, _ := testConfig(t, mk(), hyps...)
	rep := runFake(context.Background(), cfg)
	if rep.Winner == nil || *rep.Winner != "lucky" {
		t.Fatalf("without --confirm the lucky one should win, got %v", rep.Winner)
	}

	sb := mk()
	cfg, events := testConfig(t, sb, hyps...)
	cfg.Confirm = 2
	rep = runFake(context.Background(), cfg)
	m := byName(rep)
	if rep.Winner == nil || *rep.Winner != "stable" {
		t.Fatalf("with --confirm 2 winner %v, order %s", rep.Winner, names(rep))
	}
	if l := m["lucky"]; l.Runs != 3 || l.Passes != 2 || strings.Join(l.Flaky, ",") != "b" || l.Status != StatusFailed || l.Rank != 2 {
		t.Errorf("lucky: runs %d passes %d flaky %v status %s rank %d", l.Runs, l.Passes, l.Flaky, l.Status, l.Rank)
	}
	if s := m["stable"]; s.Runs != 3 || s.Passes != 3 || s.Flaky == nil || len(s.Flaky) != 0 {
		t.Errorf("stable: runs %d passes %d flaky %v", s.Runs, s.Passes, s.Flaky)
	}
	if b := m["baseline"]; b.Runs != 3 || b.Passes != 0 || rep.BaselineFlaky == nil || len(rep.BaselineFlaky) != 0 {
		t.Errorf("baseline: runs %d passes %d baseline_flaky %v", b.Runs, b.Passes, rep.BaselineFlaky)
	}
	if strings.Join(m["stable"].Fixed, ",") != "b" {
		t.Errorf("stable fixed %v", m["stable"].Fixed)
	}
	attempts := map[string][]int{}
	for _, ev := range *events {
		if ev.Kind == KindHypStarted {
			attempts[ev.Hyp] = append(attempts[ev.Hyp], ev.Attempt)
			sort.Ints(attempts[ev.Hyp])
		}
		if ev.Kind == KindHypFinished && ev.Attempt > 0 && ev.Result.Runs < 2 {
			t.Errorf("rerun's hyp_finished holds runs %d", ev.Result.Runs)
		}
	}
	if fmt.Sprint(attempts["lucky"]) != "[0 2 3]" || fmt.Sprint(attempts["stable"]) != "[0 2 3]" || len(attempts["baseline"]) != 3 {
		t.Errorf("attempts %v", attempts)
	}
	if _, err := os.Stat(filepath.Join(cfg.LogDir, "lucky", "output.2.log")); err != nil {
		t.Errorf("rerun log: %v", err)
	}
	var b strings.Builder
	report.WriteText(&b, rep)
	if !strings.Contains(b.String(), "winner: stable (confirmed: passed 3 of 3 runs)") || !strings.Contains(b.String(), "[passed 2 of 3 runs, flaky: b]") {
		t.Errorf("text:\n%s", b.String())
	}
}

// Three leaders fail their reruns: no winner, and no fourth is tried.
func TestConfirmGivesUpAfterThree(t *testing.T) {
	sb := &scriptSandbox{out: map[string]string{}, failEvery: map[string]int{}, flakyOut: map[string]string{}}
	var hyps []Hypothesis
	for i := 0; i < 5; i++ {
		n := fmt.Sprintf("h%d", i)
		sb.out[n] = "ok a\n"
		sb.failEvery[n], sb.flakyOut[n] = 2, "FAIL a\n"
		hyps = append(hyps, hyp(n, file("x", strings.Repeat("l\n", i+1))))
	}
	cfg, _ := testConfig(t, sb, hyps...)
	cfg.Confirm = 1
	rep := runFake(context.Background(), cfg)
	if rep.Winner != nil {
		t.Fatalf("winner %s", *rep.Winner)
	}
	if sb.runs["h0"] != 2 || sb.runs["h2"] != 2 || sb.runs["h3"] != 1 {
		t.Errorf("runs %v", sb.runs)
	}
}

// The spec's common part reaches every hypothesis's sandbox, the baseline
// included, but is no one's proposal: not in files or diff, not applied,
// and it disqualifies no one; a hypothesis that edits a common file is
// editing the judge.
func TestCommonFiles(t *testing.T) {
	ws := makeTree(t, map[string]string{"src/lib.py": "bug\n", "tests/test_lib.py": "old\n"})
	doc := `{"hypotheses": [{"name": "baseline"}, {"name": "fix", "edits": [{"path": "src/lib.py", "content": "fix\n"}]},
		{"name": "cheat", "edits": [{"path": "tests/test_repro.py", "content": "pass\n"}]}],
		"common": {"edits": [{"path": "tests/test_repro.py", "content": "repro\n"}], "delete": ["tests/test_lib.py"]}}`
	hyps, err := load(t, doc, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !hyps[0].IsBaseline() || len(hyps[0].Common) != 1 || strings.Join(hyps[0].CommonDeletes, ",") != "tests/test_lib.py" {
		t.Fatalf("baseline %+v", hyps[0])
	}
	if len(hyps[2].Common) != 0 || len(hyps[2].Files) != 1 || string(hyps[2].Files[0].Content) != "pass\n" {
		t.Fatalf("cheat's own edit must replace the common file: %+v", hyps[2])
	}
	sb := &scriptSandbox{out: map[string]string{"baseline": "FAIL repro\n", "fix": "ok repro\n", "cheat": "FAIL repro\n"}, exit: map[string]int{"baseline": 1, "cheat": 1}}
	cfg, _ := testConfig(t, sb, hyps...)
	cfg.Workspace, cfg.Apply = ws, true
	rep := runFake(context.Background(), cfg)
	if rep.Winner == nil || *rep.Winner != "fix" {
		t.Fatalf("winner %v order %s", rep.Winner, names(rep))
	}
	m := byName(rep)
	if seen := sb.seen["baseline"]; len(seen.Files) != 1 || seen.Files[0].Path != "tests/test_repro.py" || strings.Join(seen.Deletes, ",") != "tests/test_lib.py" {
		t.Errorf("baseline's sandbox got %+v", seen)
	}
	if f := m["fix"]; strings.Join(f.Files, ",") != "src/lib.py" || strings.Contains(f.Diff, "repro") || f.Disqualified != nil || len(f.EditsTests) != 0 {
		t.Errorf("fix: files %v disqualified %v edits %v diff\n%s", f.Files, f.Disqualified, f.EditsTests, f.Diff)
	}
	// The cheat's own version of the common test is its proposal, not its
	// judge: its judged run got the common file back.
	if c := m["cheat"]; c.Status != StatusFailed || strings.Join(c.EditsTests, ",") != "tests/test_repro.py" || strings.Join(c.JudgeEdits, ",") != "tests/test_repro.py" {
		t.Errorf("cheat: %s %v %v", c.Status, c.EditsTests, c.JudgeEdits)
	}
	if seen := sb.seen["cheat"]; len(seen.Files) != 1 || string(seen.Files[0].Content) != "repro\n" {
		t.Errorf("cheat's judged run got %+v, want the common tests/test_repro.py", seen.Files)
	}
	if strings.Join(rep.Applied, ",") != "src/lib.py" {
		t.Errorf("applied %v", rep.Applied)
	}
	if _, err := os.Stat(filepath.Join(ws, "tests", "test_repro.py")); err == nil {
		t.Errorf("--apply wrote the common file")
	}
	if _, err := os.Stat(filepath.Join(ws, "tests", "test_lib.py")); err != nil {
		t.Errorf("--apply carried out the common delete: %v", err)
	}
}

func TestJudgePaths(t *testing.T) {
	j := newJudge(nil, []string{"repro/check.sh"})
	for p, want := range map[string]bool{
		"tests/test_x.py": true, "pkg/tests/helpers.py": true, "test_x.py": true, "a/b/x_test.py": true,
		"conftest.py": true, "sub/conftest.py": true, "pyproject.toml": true, "setup.cfg": true, "tox.ini": true,
		"pytest.ini": true, "package.json": true, "web/jest.config.ts": true, "vitest.config.mts": true,
		"Cargo.toml": true, "crates/a/Cargo.toml": true, "Makefile": true, "calc_test.go": true, "x/testdata/in.txt": true,
		"src/a.test.ts": true, "src/a.spec.js": true, "__tests__/a.js": true, "repro/check.sh": true, ".cargo/config.toml": true,
		"src/lib.py": false, "src/testing.py": false, "calc.go": false, "README.md": false, "latest/x.py": false, "contest.py": false,
	} {
		if got := j.is(p); got != want {
			t.Errorf("%s: judge %v, want %v", p, got, want)
		}
	}
	custom := newJudge([]string{"checks/**", "*.t"}, nil)
	if !custom.is("checks/a/b.sh") || !custom.is("deep/x.t") || custom.is("tests/test_x.py") || !custom.is("pytest.ini") {
		t.Errorf("custom test_paths: replace the test globs, keep the runner config")
	}
}

func TestSpecVerdictFields(t *testing.T) {
	good := `{"hypotheses":[{"name":"a"}],"test_paths":["checks/**"],"allow_test_edits":true,"confirm":2,"common":{"delete":["x"]}}`
	s, err := spec.DecodeSpec([]byte(good))
	if err != nil || !s.AllowTestEdits || s.Confirm != 2 || s.TestPaths[0] != "checks/**" || s.Common.Delete[0] != "x" {
		t.Fatalf("%+v %v", s, err)
	}
	for doc, want := range map[string]string{
		`{"hypotheses":[{"name":"a"}],"allow_test_edits":"yes"}`:                          "allow_test_edits: must be true or false",
		`{"hypotheses":[{"name":"a"}],"confirm":-1}`:                                      "confirm: must be 0 to 20",
		`{"hypotheses":[{"name":"a"}],"test_paths":["/etc/**"]}`:                          "test_paths[0]: absolute glob",
		`{"hypotheses":[{"name":"a"}],"common":{"edits":[{"path":"../x","content":""}]}}`: "common.edits[0].path",
		`{"hypotheses":[{"name":"a"}],"common":{"name":"x"}}`:                             "common.name: unknown field",
	} {
		if _, err := spec.DecodeSpec([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

// Without a baseline, a judge path every hypothesis's command writes is
// the suite's own doing (a fixture under tests/); one only a candidate
// writes is not.
func TestRunTimeChangesWithoutBaseline(t *testing.T) {
	sb := &scriptSandbox{
		out:     map[string]string{"a": "ok x\n", "b": "ok x\n"},
		changed: map[string][]string{"a": {"tests/out.txt"}, "b": {"tests/out.txt", "tests/test_x.py"}},
	}
	cfg, _ := testConfig(t, sb, hyp("a", file("src.py", "1\n2\n")), hyp("b", file("src.py", "1\n")))
	rep := runFake(context.Background(), cfg)
	m := byName(rep)
	if m["a"].Disqualified != nil || str(m["b"].Disqualified) != "its command changed tests/test_x.py during the run" {
		t.Errorf("a %q, b %q", str(m["a"].Disqualified), str(m["b"].Disqualified))
	}
	if rep.Winner == nil || *rep.Winner != "a" {
		t.Errorf("winner %v", rep.Winner)
	}
	// Alone, a candidate's run-time change cannot be told from the suite's.
	cfg.Hyps = cfg.Hyps[:1]
	rep = runFake(context.Background(), cfg)
	if rep.Winner != nil {
		t.Errorf("a lone candidate that changed tests/out.txt won")
	}
}
