package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// dyingSandbox runs "ok" hypotheses; the one named "last" is cut short
// and takes the sandbox with it: from then on it is exhausted.
type dyingSandbox struct {
	mu   sync.Mutex
	dead bool
	ran  []string
	// dieAfter passes, then the sandbox is exhausted; so is it after
	// dieAfterRuns runs, when that is set.
	dieAfter     string
	dieAfterRuns int
}

func (d *dyingSandbox) Mode() Mode     { return ModeRemote }
func (d *dyingSandbox) Parallel() bool { return false }
func (d *dyingSandbox) Run(ctx context.Context, job Job) (Outcome, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dead {
		return Outcome{ExitCode: -1}, &NotRunError{Err: errors.New("every remote node failed: node n1: gone")}
	}
	d.ran = append(d.ran, job.Hyp.Name)
	if job.Hyp.Name == "last" {
		d.dead = true
		return Outcome{ExitCode: -1}, errors.New("node n1 failed under it")
	}
	job.Output.Write([]byte("ok t1\n"))
	d.dead = job.Hyp.Name == d.dieAfter || len(d.ran) == d.dieAfterRuns
	return Outcome{ExitCode: 0}, nil
}

func (d *dyingSandbox) Exhausted() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dead {
		return errors.New("every remote node failed: node n1: gone")
	}
	return nil
}

// When the sandbox has nothing left to run on, the run stops: what
// finished stays, the hypotheses never started are not run (runs 0, no
// hyp_started), the report says why, and --apply writes nothing.
func TestRunStopsWhenTheSandboxIsExhausted(t *testing.T) {
	sb := &dyingSandbox{}
	cfg, events := testConfig(t, sb, hyp("fix", file("lib.rs", "fixed\n")), hyp("last"), hyp("never"), hyp("nope"))
	cfg.Jobs, cfg.Apply = 1, true
	rep := Run(context.Background(), cfg)
	if strings.Join(sb.ran, ",") != "fix,last" {
		t.Errorf("ran %v", sb.ran)
	}
	if rep.Error == "" || !strings.Contains(rep.Error, "node n1") {
		t.Errorf("report error %q", rep.Error)
	}
	res := map[string]*Result{}
	for _, h := range rep.Hypotheses {
		res[h.Name] = h
	}
	if res["fix"].Status != StatusPassed || res["last"].Status != StatusError || res["last"].Runs != 1 {
		t.Errorf("fix %s, last %s runs %d", res["fix"].Status, res["last"].Status, res["last"].Runs)
	}
	for _, n := range []string{"never", "nope"} {
		if h := res[n]; h.Status != StatusError || h.Runs != 0 || h.Error == nil || !strings.HasPrefix(*h.Error, "not run: every remote node failed") {
			t.Errorf("%s: status %s runs %d error %v", n, h.Status, h.Runs, h.Error)
		}
	}
	if len(rep.Applied) != 0 {
		t.Errorf("applied %v from a run that stopped", rep.Applied)
	}
	for _, ev := range *events {
		if ev.Kind == KindHypStarted && (ev.Hyp == "never" || ev.Hyp == "nope") {
			t.Errorf("%s was started", ev.Hyp)
		}
	}
	var b strings.Builder
	WriteText(&b, rep)
	if !strings.Contains(b.String(), "stopped: every remote node failed") {
		t.Errorf("text report:\n%s", b.String())
	}
}

// A sandbox lost after the last hypothesis finished stopped nothing.
func TestExhaustedAfterTheLastHypothesisIsNoError(t *testing.T) {
	sb := &dyingSandbox{dieAfter: "fix"}
	cfg, _ := testConfig(t, sb, hyp("base"), hyp("fix", file("lib.rs", "fixed\n")))
	cfg.Jobs = 1
	rep := Run(context.Background(), cfg)
	if rep.Error != "" || rep.Winner == nil || sb.Exhausted() == nil {
		t.Errorf("error %q winner %v", rep.Error, rep.Winner)
	}
}

// --confirm's reruns cut short by the sandbox's end confirm nothing and
// demote nothing: the leader stays passed, unconfirmed, no winner is
// named, and the report says why.
func TestConfirmCutShortByTheSandboxConfirmsNothing(t *testing.T) {
	sb := &dyingSandbox{dieAfterRuns: 3}
	cfg, _ := testConfig(t, sb, hyp("base"), hyp("fix", file("lib.rs", "fixed\n")))
	cfg.Jobs, cfg.Confirm = 1, 2
	rep := Run(context.Background(), cfg)
	var fix *Result
	for _, h := range rep.Hypotheses {
		if h.Name == "fix" {
			fix = h
		}
	}
	if rep.Error == "" || rep.Winner != nil {
		t.Errorf("error %q winner %v", rep.Error, rep.Winner)
	}
	if fix.Status != StatusPassed || fix.Runs != fix.Passes {
		t.Errorf("fix: status %s, %d of %d runs passed: a lost rerun counted against it", fix.Status, fix.Passes, fix.Runs)
	}
}
