package judge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine/checkout"
	"github.com/shadow-dev/shadow/parse"
)

// The judge's tests run it the way engine.Run does, stage by stage
// (Setup, each hypothesis's run observed, After, Assemble), over a fake
// core: no Sandbox, no engine. A fake sandbox here is a script of what a
// job prints and exits with; runFake is the core's loop in small, and
// fakeJobs is judge.Jobs over it.

type Mode string

type fakeJob struct {
	Workspace string
	Subdir    string
	Hyp       Hypothesis
	Command   []string
	Output    io.Writer
	Collect   []string
}

type fakeOutcome struct {
	ExitCode  int
	Signal    string
	Collected map[string][]byte
	Changed   []string
}

type sandbox interface {
	Mode() Mode
	Parallel() bool
	Run(ctx context.Context, job fakeJob) (fakeOutcome, error)
}

// runConfig is the part of engine.Config the judge's tests set.
type runConfig struct {
	RunID           string
	Workspace       string
	Subdir          string
	Command         []string
	Hyps            []Hypothesis
	Jobs            int
	Timeout         time.Duration
	JUnit           string
	LogDir          string
	TestPaths       []string
	AllowTestEdits  bool
	NoCross         bool
	WithTests       bool
	AllowSuspicious bool
	Confirm         int
	Apply           bool
	TestsFrom       *TestsFrom
	Sandbox         sandbox
	Emit            func(Event)
	NewParser       func(command []string) TestParser
	ParseJUnit      func([]byte) (*parse.Summary, error)
}

func (c *runConfig) judgeConfig() Config {
	jobs := c.Jobs
	if jobs <= 0 || !c.Sandbox.Parallel() {
		jobs = 1
	}
	return Config{Workspace: c.Workspace, Subdir: c.Subdir, Command: c.Command, Hyps: c.Hyps, Jobs: jobs,
		Timeout: c.Timeout, JUnit: c.JUnit, LogDir: c.LogDir, TestPaths: c.TestPaths, AllowTestEdits: c.AllowTestEdits,
		NoCross: c.NoCross, AllowSuspicious: c.AllowSuspicious, Confirm: c.Confirm, TestsFrom: c.TestsFrom,
		NewParser: c.NewParser, ParseJUnit: c.ParseJUnit}
}

// fakeJobs is the fake core's judge.Jobs.
type fakeJobs struct {
	cfg *runConfig
	jr  *Run
	mu  sync.Mutex
	seq int64
}

func (f *fakeJobs) Run(ctx context.Context, job Job) (Outcome, error) {
	o, err := f.cfg.Sandbox.Run(ctx, fakeJob{Workspace: f.cfg.Workspace, Subdir: f.cfg.Subdir, Hyp: job.Hyp,
		Command: job.Command, Output: job.Output, Collect: job.Collect})
	return Outcome{ExitCode: o.ExitCode, Collected: o.Collected}, err
}

func (f *fakeJobs) Rerun(ctx context.Context, h Hypothesis, n int, r *Result, observe func(Observation)) {
	f.runOne(ctx, h, n, r, observe)
}

func (f *fakeJobs) Emit(n int, ev Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	ev.Schema, ev.Seq, ev.Run = EventSchema, f.seq, f.cfg.RunID
	if ev.Attempt == 0 && n > 1 {
		ev.Attempt = n
	}
	if f.cfg.Emit != nil {
		f.cfg.Emit(ev)
	}
}

func (f *fakeJobs) OpenLog(p string) (io.WriteCloser, error) { return os.Create(p) }

func (f *fakeJobs) Exhausted() error { return nil }

// syncBuffer is a job's output as the fake core keeps it.
type syncBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	parser TestParser
	view   *CanaryView
	last   time.Time
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.last = time.Now()
	if b.parser != nil {
		_, _ = b.parser.Write(p)
	}
	shown := p
	if b.view != nil {
		shown = b.view.Write(p)
	}
	b.buf.Write(shown)
	return len(p), nil
}

// runOne is the core's runOne in small: the job's status from its exit,
// its output as its tail, the parser's counts (or JUnit's), observed by
// the judge.
func (f *fakeJobs) runOne(ctx context.Context, h Hypothesis, attempt int, r *Result, observe func(Observation)) {
	cfg := f.cfg
	start := time.Now()
	r.Status = StatusRunning
	f.Emit(attempt, Event{Kind: KindHypStarted, Hyp: h.Name})
	var parser TestParser
	if cfg.NewParser != nil {
		parser = cfg.NewParser(cfg.Command)
	}
	prep := f.jr.Prepare(h, parser)
	out := &syncBuffer{parser: prep.Parser, view: prep.View}
	hctx, cancel := ctx, context.CancelFunc(func() {})
	if cfg.Timeout > 0 {
		hctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
	}
	defer cancel()
	job := fakeJob{Workspace: cfg.Workspace, Subdir: cfg.Subdir, Hyp: prep.Hyp, Command: cfg.Command, Output: out}
	if cfg.JUnit != "" {
		job.Collect = []string{path.Join(cfg.Subdir, cfg.JUnit)}
	}
	o, err := cfg.Sandbox.Run(hctx, job)
	if out.view != nil {
		out.buf.Write(out.view.Flush())
	}
	var summary *parse.Summary
	if prep.Parser != nil {
		summary = prep.Parser.Final()
	}
	if r.Log != "" && os.MkdirAll(filepath.Dir(r.Log), 0o700) == nil {
		os.WriteFile(r.Log, out.buf.Bytes(), 0o600)
	}
	r.DurationMS = time.Since(start).Milliseconds()
	r.OutputTail = out.buf.String()
	r.OutputBytes = int64(out.buf.Len())
	switch {
	case errors.Is(hctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		r.Status = StatusTimedOut
		msg := fmt.Sprintf("timed out after %s", cfg.Timeout)
		r.Error = &msg
	case ctx.Err() != nil:
		r.Status = StatusCancelled
	case err != nil:
		r.Status = StatusError
		msg := err.Error()
		r.Error = &msg
	case o.ExitCode == 0:
		r.Status = StatusPassed
	default:
		r.Status = StatusFailed
	}
	if err == nil && r.Status != StatusCancelled && r.Status != StatusTimedOut {
		code := o.ExitCode
		r.ExitCode = &code
		if o.Signal != "" {
			msg := "killed by " + o.Signal
			r.Error = &msg
		}
	}
	r.Mode = string(cfg.Sandbox.Mode())
	if cfg.ParseJUnit != nil && len(job.Collect) > 0 {
		if b, ok := o.Collected[job.Collect[0]]; ok {
			if s, jerr := cfg.ParseJUnit(b); jerr == nil && s != nil {
				summary = s
			}
		}
	}
	observe(Observation{Prep: prep, Summary: summary, Ran: err == nil, ExitCode: o.ExitCode, Signal: o.Signal,
		Changed: o.Changed, LastOutput: out.last, End: time.Now(), Timeout: cfg.Timeout})
	r.Runs, r.Passes = 1, 0
	if r.Status == StatusPassed {
		r.Passes = 1
	}
}

// runFake runs every hypothesis the way engine.Run does and returns the
// judged report.
func runFake(ctx context.Context, cfg runConfig) *Report {
	rep := &Report{Schema: ReportSchema, Run: cfg.RunID, Workspace: cfg.Workspace, Subdir: cfg.Subdir, Command: cfg.Command,
		Mode: string(cfg.Sandbox.Mode()), StalePaths: []string{}, Applied: []string{},
		Judged: !cfg.AllowTestEdits, AllowSuspicious: cfg.AllowSuspicious}
	orig := checkout.ReadOriginals(cfg.Workspace, cfg.Hyps)
	jc := cfg.judgeConfig()
	fj := &fakeJobs{cfg: &cfg}
	jr := Setup(ctx, jc, fj, orig, rep)
	fj.jr = jr
	sem := make(chan struct{}, jc.Jobs)
	var wg sync.WaitGroup
	for _, h := range cfg.Hyps {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			jr.Entry(h.Name).Status = StatusCancelled
			c := *jr.Entry(h.Name)
			fj.Emit(0, Event{Kind: KindHypFinished, Hyp: h.Name, Result: &c})
			continue
		}
		wg.Add(1)
		go func(h Hypothesis) {
			defer wg.Done()
			defer func() { <-sem }()
			fj.runOne(ctx, jr.JobHyp(h.Name), 0, jr.Entry(h.Name), func(o Observation) { jr.Observed(h.Name, o) })
			c := *jr.Entry(h.Name)
			jr.Provisional(h.Name, &c)
			fj.Emit(0, Event{Kind: KindHypFinished, Hyp: h.Name, Result: &c})
			jr.AfterJudged(ctx, h.Name, sem)
		}(h)
	}
	jr.StartCross(ctx, sem)
	wg.Wait()
	jr.Wait()
	jr.After(ctx, rep)
	jr.Assemble(rep)
	if cfg.Apply && rep.Winner != nil && !rep.Cancelled && rep.Error == "" {
		for _, h := range cfg.Hyps {
			if h.Name == *rep.Winner {
				if !cfg.WithTests && !cfg.AllowTestEdits {
					h = CodeOnly(h, jr.JudgePaths(h.Name))
				}
				applied, err := checkout.ApplyHypothesis(cfg.Workspace, h, orig)
				if err != nil {
					rep.ApplyError = err.Error()
				} else {
					rep.Applied = applied
				}
			}
		}
	}
	fj.Emit(0, Event{Kind: KindRunFinished, Report: rep})
	return rep
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

func testConfig(t *testing.T, sb sandbox, hyps ...Hypothesis) (runConfig, *[]Event) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "lib.rs"), []byte("pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"), 0o644)
	var mu sync.Mutex
	events := &[]Event{}
	return runConfig{
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

// fakeSandbox prints a scripted output per hypothesis and exits with a
// scripted code; "sleep" hypotheses block until ctx ends.
type fakeSandbox struct {
	out      map[string]string
	exit     map[string]int
	block    map[string]bool
	parallel bool
}

func (f *fakeSandbox) Mode() Mode     { return "fake" }
func (f *fakeSandbox) Parallel() bool { return f.parallel }
func (f *fakeSandbox) Run(ctx context.Context, job fakeJob) (fakeOutcome, error) {
	job.Output.Write([]byte(f.out[job.Hyp.Name]))
	if f.block[job.Hyp.Name] {
		<-ctx.Done()
		return fakeOutcome{ExitCode: -1, Signal: "SIGKILL"}, nil
	}
	return fakeOutcome{ExitCode: f.exit[job.Hyp.Name]}, nil
}

// collectConfig is the judge's Config for a collection alone, its jobs in
// the fake sandbox.
func (c *runConfig) collectConfig() *Config {
	jc := c.judgeConfig()
	jc.jobs = &fakeJobs{cfg: c}
	return &jc
}
