package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine/judge"
	"github.com/shadow-dev/shadow/parse"
)

// fakeSandbox prints a scripted output per hypothesis and exits with a
// scripted code; "sleep" hypotheses block until ctx ends.
type fakeSandbox struct {
	out      map[string]string
	exit     map[string]int
	block    map[string]bool
	parallel bool
	mu       sync.Mutex
	running  int
	maxSeen  int
}

func (f *fakeSandbox) Mode() Mode     { return "fake" }
func (f *fakeSandbox) Parallel() bool { return f.parallel }
func (f *fakeSandbox) Run(ctx context.Context, job Job) (Outcome, error) {
	f.mu.Lock()
	f.running++
	f.maxSeen = max(f.maxSeen, f.running)
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.running--; f.mu.Unlock() }()
	job.Output.Write([]byte(f.out[job.Hyp.Name]))
	if f.block[job.Hyp.Name] {
		<-ctx.Done()
		return Outcome{ExitCode: -1, Signal: "SIGKILL"}, nil
	}
	time.Sleep(20 * time.Millisecond)
	return Outcome{ExitCode: f.exit[job.Hyp.Name]}, nil
}

// countParser is a stand-in for parse.Stream: it counts "ok NAME" and
// "FAIL NAME" lines.
type countParser struct{ buf strings.Builder }

func (c *countParser) Write(p []byte) (int, error) { return c.buf.Write(p) }
func (c *countParser) Live() *parse.Summary        { return c.Final() }
func (c *countParser) Final() *parse.Summary {
	var s parse.Summary
	for _, l := range strings.Split(c.buf.String(), "\n") {
		if n, ok := strings.CutPrefix(l, "ok "); ok {
			s.Passed++
			s.PassedTests = append(s.PassedTests, n)
		}
		if n, ok := strings.CutPrefix(l, "FAIL "); ok {
			s.Failed++
			s.FailedTests = append(s.FailedTests, n)
		}
	}
	if s.Passed+s.Failed == 0 {
		return nil
	}
	s.Framework = "fake"
	return &s
}

func hyp(name string, files ...File) Hypothesis { return Hypothesis{Name: name, Files: files} }

func file(p, content string) File { return File{Path: p, Content: []byte(content), Mode: 0o644} }

func testConfig(t *testing.T, sb Sandbox, hyps ...Hypothesis) (Config, *[]Event) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "lib.rs"), []byte("pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"), 0o644)
	var mu sync.Mutex
	events := &[]Event{}
	return Config{
		RunID: "r1", Workspace: ws, Command: []string{"cargo", "test"}, Hyps: hyps, Jobs: 4,
		LogDir: t.TempDir(), Sandbox: sb,
		NewParser: func([]string) TestParser { return &countParser{} },
		Emit: func(ev Event) {
			mu.Lock()
			*events = append(*events, ev)
			mu.Unlock()
		},
	}, events
}

// The article's table: plus and clamp pass with 2 changed lines each (plus
// first by spec order), baseline and mul fail 2 tests (baseline first: no
// changed lines).
func TestRankArticleExample(t *testing.T) {
	sb := &fakeSandbox{parallel: true,
		out:  map[string]string{"baseline": "FAIL t1\nFAIL t2\n", "plus": "ok t1\nok t2\n", "mul": "FAIL t1\nFAIL t2\n", "clamp": "ok t1\nok t2\n"},
		exit: map[string]int{"baseline": 101, "mul": 101},
	}
	cfg, _ := testConfig(t, sb,
		hyp("baseline"),
		hyp("plus", file("lib.rs", "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n")),
		hyp("mul", file("lib.rs", "pub fn add(a: i32, b: i32) -> i32 {\n    a * b\n}\n")),
		hyp("clamp", file("lib.rs", "pub fn add(a: i32, b: i32) -> i32 {\n    (a + b).clamp(i32::MIN, i32::MAX)\n}\n")),
	)
	rep := Run(context.Background(), cfg)
	var got []string
	for _, h := range rep.Hypotheses {
		got = append(got, h.Name)
	}
	if strings.Join(got, ",") != "plus,clamp,baseline,mul" {
		t.Errorf("rank order %v", got)
	}
	if rep.Winner == nil || *rep.Winner != "plus" {
		t.Errorf("winner %v", rep.Winner)
	}
	plus := rep.Hypotheses[0]
	if plus.ChangedLines != 2 || !strings.Contains(plus.Diff, "-    a - b\n+    a + b\n") {
		t.Errorf("plus diff (%d lines):\n%s", plus.ChangedLines, plus.Diff)
	}
	if strings.Join(plus.Fixed, ",") != "t1,t2" || len(plus.Broken) != 0 {
		t.Errorf("plus fixed %v broken %v", plus.Fixed, plus.Broken)
	}
	for i, h := range rep.Hypotheses {
		if h.Rank != i+1 {
			t.Errorf("%s rank %d at %d", h.Name, h.Rank, i)
		}
	}
}

func TestRankOrderRules(t *testing.T) {
	ok := func(name string, passed, failed, changed int, status string) *Result {
		return &Result{Name: name, Status: status, Tests: &Tests{Passed: passed, Failed: failed}, ChangedLines: changed}
	}
	rs := []*Result{
		ok("a-failed-few", 5, 1, 1, StatusFailed),
		ok("b-passed-big", 5, 0, 9, StatusPassed),
		ok("c-passed-more-tests", 6, 0, 20, StatusPassed),
		ok("d-failed-many", 9, 4, 0, StatusFailed),
		ok("e-passed-small", 5, 0, 1, StatusPassed),
		ok("f-timeout", 0, 0, 0, StatusTimedOut),
	}
	judge.Rank(rs, nil)
	var got []string
	for _, r := range rs {
		got = append(got, r.Name)
	}
	// A timed-out run ranks below every run that ran to the end (docs/report.md).
	want := "c-passed-more-tests,e-passed-small,b-passed-big,a-failed-few,d-failed-many,f-timeout"
	if strings.Join(got, ",") != want {
		t.Errorf("got  %v\nwant %s", got, want)
	}
}

func TestEventSequence(t *testing.T) {
	sb := &fakeSandbox{out: map[string]string{"a": "ok t1\n", "b": "FAIL t1\n"}, exit: map[string]int{"b": 1}}
	cfg, events := testConfig(t, sb, hyp("a"), hyp("b", file("x.txt", "x\n")))
	rep := Run(context.Background(), cfg)
	var kinds []string
	for i, ev := range *events {
		if ev.Seq != int64(i+1) || ev.Schema != EventSchema || ev.Run != "r1" {
			t.Errorf("event %d: seq %d schema %q run %q", i, ev.Seq, ev.Schema, ev.Run)
		}
		kinds = append(kinds, ev.Kind+":"+ev.Hyp)
	}
	want := "run_started:,hyp_started:a,output:a,tests:a,hyp_finished:a,hyp_started:b,output:b,tests:b,hyp_finished:b,run_finished:"
	if strings.Join(kinds, ",") != want {
		t.Errorf("events\n got %s\nwant %s", strings.Join(kinds, ","), want)
	}
	last := (*events)[len(*events)-1]
	if last.Report != rep || rep.Winner == nil || *rep.Winner != "a" {
		t.Errorf("last event must hold the report with winner a")
	}
	b, _ := os.ReadFile(filepath.Join(cfg.LogDir, "b", "output.log"))
	if string(b) != "FAIL t1\n" {
		t.Errorf("log of b: %q", b)
	}
}

func TestParallelismBoundedByJobs(t *testing.T) {
	sb := &fakeSandbox{parallel: true, out: map[string]string{}}
	var hyps []Hypothesis
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		hyps = append(hyps, hyp(n))
	}
	cfg, _ := testConfig(t, sb, hyps...)
	cfg.Jobs = 2
	Run(context.Background(), cfg)
	if sb.maxSeen != 2 {
		t.Errorf("max concurrent %d, want 2", sb.maxSeen)
	}
	sb.parallel, sb.maxSeen = false, 0
	cfg.Jobs = 4
	Run(context.Background(), cfg)
	if sb.maxSeen != 1 {
		t.Errorf("serial sandbox ran %d at once", sb.maxSeen)
	}
}

func TestTimeoutAndCancel(t *testing.T) {
	sb := &fakeSandbox{parallel: true, block: map[string]bool{"slow": true}, out: map[string]string{"fast": "ok t\n"}}
	cfg, _ := testConfig(t, sb, hyp("fast"), hyp("slow"))
	cfg.Timeout = 200 * time.Millisecond
	rep := Run(context.Background(), cfg)
	st := map[string]string{}
	for _, h := range rep.Hypotheses {
		st[h.Name] = h.Status
	}
	if st["fast"] != StatusPassed || st["slow"] != StatusTimedOut {
		t.Errorf("statuses %v", st)
	}

	cfg.Timeout = 0
	cfg.Jobs = 1
	cfg.Hyps = []Hypothesis{hyp("slow"), hyp("queued")}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	rep = Run(ctx, cfg)
	for _, h := range rep.Hypotheses {
		if h.Status != StatusCancelled {
			t.Errorf("%s: %s after cancel", h.Name, h.Status)
		}
	}
	if !rep.Cancelled || rep.Winner != nil {
		t.Errorf("cancelled run: cancelled=%v winner=%v", rep.Cancelled, rep.Winner)
	}
}

func TestTailKeepsFailureUnderWarningFlood(t *testing.T) {
	var tl tail
	tl.write([]byte("compiling\n--- FAIL: TestAdd (0.00s)\n    calc_test.go:7: Add(2, 3) = -1, want 5\n"))
	for i := 0; i < 100000; i++ {
		tl.write([]byte("warning: unused variable `x`\n   Blocking waiting for file lock on package cache\n"))
	}
	tl.write([]byte("FAIL\tcalc\t0.01s\n"))
	s := tl.String()
	if !strings.Contains(s, "--- FAIL: TestAdd") || !strings.Contains(s, "Add(2, 3) = -1, want 5") {
		t.Errorf("failure pushed out of the tail:\n%s", s)
	}
	if strings.Contains(s, "Blocking waiting") {
		t.Errorf("cargo lock noise kept")
	}
	if !strings.HasSuffix(s, "FAIL\tcalc\t0.01s\n") {
		t.Errorf("tail lost its end:\n%s", s)
	}
	if len(s) > (tailLines+sectionMax*sectionLines)*(lineCap+8) {
		t.Errorf("tail unbounded: %d bytes", len(s))
	}
}

func TestTailBoundsHugeLine(t *testing.T) {
	var tl tail
	big := strings.Repeat("x", 10<<20)
	tl.write([]byte(big))
	tl.write([]byte(big + "\nend\n"))
	if len(tl.partial) != 0 || len(tl.String()) > 2*lineCap+100 {
		t.Errorf("huge line kept: %d bytes", len(tl.String()))
	}
}

func TestGoTestJSONTailReadsLikePlain(t *testing.T) {
	var tl tail
	live := tl.write([]byte(`{"Time":"2026-01-01T00:00:00Z","Action":"run","Package":"calc","Test":"TestAdd"}
{"Time":"2026-01-01T00:00:00Z","Action":"output","Package":"calc","Test":"TestAdd","Output":"    calc_test.go:7: Add(2, 3) = -1, want 5\n"}
`))
	if live != "    calc_test.go:7: Add(2, 3) = -1, want 5\n" || !strings.Contains(tl.String(), "want 5") {
		t.Errorf("live %q tail %q", live, tl.String())
	}
}

func TestApplyRefusesOnConflict(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "b.txt"), []byte("b\n"), 0o644)
	h := Hypothesis{Name: "h", Files: []File{file("a.txt", "A\n"), file("b.txt", "B\n")}}
	orig := ReadOriginals(ws, []Hypothesis{h})
	os.WriteFile(filepath.Join(ws, "b.txt"), []byte("user edit\n"), 0o644)
	_, err := ApplyHypothesis(ws, h, orig)
	if err == nil || !strings.Contains(err.Error(), "b.txt") {
		t.Fatalf("want a conflict on b.txt, got %v", err)
	}
	if a, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(a) != "a\n" {
		t.Errorf("a.txt written despite the conflict: %q", a)
	}
	// Without the conflict, both files are written and modes set.
	os.WriteFile(filepath.Join(ws, "b.txt"), []byte("b\n"), 0o644)
	h.Files[0].Mode = 0o755
	h.Deletes = []string{"gone.txt"}
	os.WriteFile(filepath.Join(ws, "gone.txt"), nil, 0o644)
	orig = ReadOriginals(ws, []Hypothesis{h})
	applied, err := ApplyHypothesis(ws, h, orig)
	if err != nil || len(applied) != 3 {
		t.Fatal(applied, err)
	}
	fi, _ := os.Stat(filepath.Join(ws, "a.txt"))
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v", fi.Mode())
	}
	if _, err := os.Stat(filepath.Join(ws, "gone.txt")); !os.IsNotExist(err) {
		t.Errorf("deletion not applied")
	}
	left, _ := filepath.Glob(filepath.Join(ws, ".*shadow*"))
	if len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
}

func TestStaleDetection(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a"), 0o644)
	os.MkdirAll(filepath.Join(ws, "target"), 0o755)
	st := ScanSources(ws)
	os.WriteFile(filepath.Join(ws, "target", "build.o"), []byte("o"), 0o644)
	if c := st.Changed(ws); len(c) != 0 {
		t.Errorf("build output counted as a source change: %v", c)
	}
	time.Sleep(10 * time.Millisecond)
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("ab"), 0o644)
	os.WriteFile(filepath.Join(ws, "new.txt"), []byte("n"), 0o644)
	if c := st.Changed(ws); strings.Join(c, ",") != "a.txt,new.txt" {
		t.Errorf("changed %v", c)
	}
}
