package tui

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/parse"
)

// The live ranking `shadow tui` draws from the events it receives in
// memory and the one `shadow watch` draws from the same events read back
// from events.ndjson (JSON) must be the same at every point of the run:
// both see only what shadow.event/v1 carries. The run below has a
// hypothesis of every tier of docs/report.md ("rank"): passed, a
// suspicious pass (allowed, then not), one that loses a test
// (disqualified), one whose command changes a test file at run time
// (disqualified), one whose proposed test makes its diff larger than its
// code (judged), failed with counts, no counts, timed out, an error, and a
// lucky pass that fails its rerun (--confirm) or the run cancelled while
// some are queued; under --allow-suspicious, --allow-test-edits and
// --confirm.
func TestLiveRankingEqualsWatchFromRecordedEvents(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*engine.Config)
		want string // the verdict kinds the run must show (verdictKinds)
	}{
		{"allow-suspicious", func(c *engine.Config) { c.AllowSuspicious = true }, "passed,suspicious,disqualified,failed,no-counts,timed_out,error"},
		{"plain", func(c *engine.Config) {}, "passed,suspicious,disqualified,failed,no-counts,timed_out,error"},
		{"allow-test-edits", func(c *engine.Config) { c.AllowTestEdits = true }, "passed,suspicious,failed,no-counts,timed_out,error"},
		{"confirm", func(c *engine.Config) { c.Confirm = 1 }, "passed,confirm-failed,disqualified,failed,timed_out,error"},
		{"cancelled", func(c *engine.Config) { c.Sandbox.(*roundTripSandbox).cancelAt = "wrong" }, "passed,cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := roundTripConfig(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cfg.Sandbox.(*roundTripSandbox).cancel = cancel
			tc.set(&cfg)
			live, watch := newRunView(""), newRunView("")
			finished := 0
			cfg.Emit = func(ev engine.Event) {
				live.apply(ev)
				b, err := json.Marshal(ev)
				if err != nil {
					t.Fatal(err)
				}
				var back engine.Event
				if err := json.Unmarshal(b, &back); err != nil {
					t.Fatal(err)
				}
				watch.apply(back)
				if ev.Kind != engine.KindHypFinished {
					return
				}
				finished++
				if l, w := names(live.ranked()), names(watch.ranked()); l != w {
					t.Errorf("after %s's hyp_finished (attempt %d): tui ranks %s, watch ranks %s", ev.Hyp, ev.Attempt, l, w)
				}
			}
			rep := engine.Run(ctx, cfg)
			if finished < len(cfg.Hyps) {
				t.Fatalf("%d hyp_finished events for %d hypotheses", finished, len(cfg.Hyps))
			}
			if l, w := names(live.ranked()), names(watch.ranked()); l != w {
				t.Errorf("after run_finished: tui ranks %s, watch ranks %s", l, w)
			}
			var want []string
			for _, r := range rep.Hypotheses {
				want = append(want, r.Name)
			}
			if got := names(live.ranked()); got != strings.Join(want, ",") {
				t.Errorf("after run_finished: tui ranks %s, the report %v", got, want)
			}
			kinds := verdictKinds(rep)
			for _, k := range strings.Split(tc.want, ",") {
				if !kinds[k] {
					t.Errorf("the run shows no %s result (it shows %v): the test no longer covers it", k, kinds)
				}
			}
		})
	}
}

func names(hs []*hypState) string {
	var out []string
	for _, h := range hs {
		out = append(out, h.name)
	}
	return strings.Join(out, ",")
}

// verdictKinds are the kinds of verdict a report's results show.
func verdictKinds(rep *engine.Report) map[string]bool {
	k := map[string]bool{}
	for _, r := range rep.Hypotheses {
		switch {
		case r.RankKey != nil && r.RankKey.ConfirmFailed:
			k["confirm-failed"] = true
		case r.Status == engine.StatusPassed && r.Suspicious != nil:
			k["suspicious"] = true
		case r.Status == engine.StatusPassed && (r.Disqualified != nil || r.Tampered != nil):
			k["disqualified"] = true
		case r.Status == engine.StatusPassed:
			k["passed"] = true
		case r.Status == engine.StatusFailed && r.Tests == nil:
			k["no-counts"] = true
		case r.Status == engine.StatusFailed:
			k["failed"] = true
		default:
			k[r.Status] = true
		}
	}
	return k
}

// roundTripConfig is a run of one hypothesis per tier on a fake sandbox.
func roundTripConfig(t *testing.T) engine.Config {
	ws := t.TempDir()
	orig := "def f(x):\n    return x - 1\n"
	os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	os.WriteFile(filepath.Join(ws, "src/m.py"), []byte(orig), 0o644)
	file := func(p, c string) engine.File { return engine.File{Path: p, Content: []byte(c), Mode: 0o644} }
	hyp := func(name string, files ...engine.File) engine.Hypothesis {
		return engine.Hypothesis{Name: name, Files: files}
	}
	pass2 := "ok t1\nok t2\n"
	sb := &roundTripSandbox{
		out: map[string]string{
			"baseline": "ok t1\nFAIL t2\n",
			"fix":      pass2,
			"fix3":     pass2,
			"withtest": pass2,
			"sniff":    pass2 + "ok t3\n",
			"lost":     "ok t1\n",
			"wrong":    "FAIL t1\nFAIL t2\n",
			"silent":   "",
			"lucky":    pass2,
			"rewrite":  pass2,
			"hang":     "ok t1\n",
		},
		exit:    map[string]int{"baseline": 1, "wrong": 1, "silent": 1},
		err:     map[string]bool{"crash": true},
		hang:    map[string]bool{"hang": true},
		changed: map[string][]string{"rewrite": {"tests/test_m.py"}},
		// lucky passes its first run only.
		rerunOut:  map[string]string{"lucky": "ok t1\nFAIL t2\n"},
		rerunExit: map[string]int{"lucky": 1},
		runs:      map[string]int{},
	}
	return engine.Config{
		RunID: "r1", Workspace: ws, Command: []string{"fake-test"}, Jobs: 2, Timeout: time.Second,
		LogDir: t.TempDir(), Sandbox: sb,
		NewParser: func([]string) engine.TestParser { return &okFailParser{} },
		Hyps: []engine.Hypothesis{
			hyp("baseline"),
			hyp("lucky", file("src/m.py", "def f(x):\n    return 0 + x\n")),
			hyp("fix3", file("src/m.py", "def f(x):\n    y = x\n    z = y\n    return z\n")),
			hyp("withtest", file("src/m.py", "def f(x):\n    return x\n"),
				file("tests/test_m.py", "from src.m import f\n\n\ndef test_f():\n    assert f(1) == 1\n    assert f(2) == 2\n    assert f(3) == 3\n")),
			hyp("sniff", file("src/m.py", "import sys\ndef f(x):\n    if 'pytest' in sys.modules:\n        return x\n    return x\n")),
			hyp("fix", file("src/m.py", "def f(x):\n    return x\n")),
			hyp("lost", file("src/m.py", "def f(x):\n    return x + 0\n")),
			hyp("wrong", file("src/m.py", "def f(x):\n    return x - 2\n")),
			hyp("silent", file("src/m.py", "def f(x):\n    return x - 3\n")),
			hyp("crash", file("src/m.py", "def f(x):\n    return x - 4\n")),
			hyp("rewrite", file("src/m.py", "def f(x):\n    return x + 0 * 1\n")),
			hyp("hang", file("src/m.py", "def f(x):\n    return x - 5\n")),
		},
	}
}

// roundTripSandbox prints a scripted output per hypothesis; err makes the
// sandbox itself fail (status error), hang blocks until the job's context
// ends (timed out), changed is what the command changed at run time,
// rerunOut and rerunExit what a second run prints and exits with;
// cancelAt cancels the run when that hypothesis starts.
type roundTripSandbox struct {
	out       map[string]string
	exit      map[string]int
	err       map[string]bool
	hang      map[string]bool
	changed   map[string][]string
	rerunOut  map[string]string
	rerunExit map[string]int
	cancelAt  string
	cancel    func()

	mu   sync.Mutex
	runs map[string]int
}

func (f *roundTripSandbox) Mode() engine.Mode { return "fake" }
func (f *roundTripSandbox) Parallel() bool    { return false }
func (f *roundTripSandbox) Run(ctx context.Context, job engine.Job) (engine.Outcome, error) {
	name := job.Hyp.Name
	f.mu.Lock()
	f.runs[name]++
	n := f.runs[name]
	f.mu.Unlock()
	if name == f.cancelAt {
		f.cancel()
		<-ctx.Done()
		return engine.Outcome{ExitCode: -1, Signal: "SIGKILL"}, nil
	}
	if f.err[name] {
		return engine.Outcome{}, errors.New("the fake sandbox broke")
	}
	out, exit := f.out[name], f.exit[name]
	if r, ok := f.rerunOut[name]; ok && n > 1 {
		out, exit = r, f.rerunExit[name]
	}
	job.Output.Write([]byte(out))
	if f.hang[name] {
		<-ctx.Done()
		return engine.Outcome{ExitCode: -1, Signal: "SIGKILL"}, nil
	}
	return engine.Outcome{ExitCode: exit, Changed: f.changed[name]}, nil
}

// okFailParser counts "ok NAME" and "FAIL NAME" lines.
type okFailParser struct{ buf strings.Builder }

func (c *okFailParser) Write(p []byte) (int, error) { return c.buf.Write(p) }
func (c *okFailParser) Live() *parse.Summary        { return c.Final() }
func (c *okFailParser) Final() *parse.Summary {
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
