package tui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"
	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// driver plays bubbletea's part for a model in a test: it runs commands
// in goroutines and feeds their messages to Update on the test's
// goroutine, until a condition holds. Redraw ticks are not re-armed.
type driver struct {
	t    *testing.T
	m    *Model
	msgs chan tea.Msg
	stop chan struct{}
}

func newDriver(t *testing.T, m *Model) *driver {
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg, 256), stop: make(chan struct{})}
	t.Cleanup(func() { close(d.stop) })
	return d
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				d.run(c)
			}
			return
		}
		if _, tick := msg.(tickMsg); msg == nil || tick {
			return
		}
		select {
		case d.msgs <- msg:
		case <-d.stop:
		}
	}()
}

// until feeds messages to the model until cond holds, failing after 10s.
func (d *driver) until(what string, cond func() bool) {
	d.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case msg := <-d.msgs:
			_, cmd := d.m.Update(msg)
			d.run(cmd)
		case <-deadline:
			d.t.Fatalf("timed out waiting for %s; screen:\n%s", what, d.m.View())
		}
	}
}

// key presses a key and runs what it returns.
func (d *driver) key(s string) {
	_, cmd := d.m.Update(press(s))
	d.run(cmd)
}

// recordRun records a run in store as shadow does: meta and inputs, the
// events, and (when rep is set) the report.
func recordRun(t *testing.T, store snap.Store, ws, id string, pid int, hyps []engine.Hypothesis, rep *engine.Report) *snap.Run {
	t.Helper()
	var names []string
	for _, h := range hyps {
		names = append(names, h.Name)
	}
	r, err := store.NewRun(snap.Meta{Run: id, Workspace: ws, Command: []string{"make", "test"}, StartedAt: time.Now().UTC(), PID: pid, Hypotheses: names}, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RecordInputs(hyps, nil, engine.ReadOriginals(ws, hyps)); err != nil {
		t.Fatal(err)
	}
	r.AppendEvent(engine.Event{Kind: engine.KindRunStarted, Run: id, Hypotheses: names, Command: []string{"make", "test"}, Workspace: ws})
	if rep != nil {
		for _, res := range rep.Hypotheses {
			r.AppendEvent(engine.Event{Kind: engine.KindHypStarted, Run: id, Hyp: res.Name})
			r.AppendEvent(engine.Event{Kind: engine.KindHypFinished, Run: id, Hyp: res.Name, Result: res})
		}
		r.AppendEvent(engine.Event{Kind: engine.KindRunFinished, Run: id, Report: rep})
		if err := r.Finish(rep); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func report(id, ws, winner string, names ...string) *engine.Report {
	rep := &engine.Report{Schema: engine.ReportSchema, Run: id, Workspace: ws, Command: []string{"make", "test"}, StartedAt: time.Now().UTC()}
	for i, n := range names {
		st := engine.StatusFailed
		if n == winner {
			st = engine.StatusPassed
		}
		rep.Hypotheses = append(rep.Hypotheses, &engine.Result{Name: n, Status: st, Rank: i + 1})
	}
	if winner != "" {
		rep.Winner = &winner
	}
	return rep
}

// deadPID is the PID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return c.Process.Pid
}

func fixHyps() []engine.Hypothesis {
	return []engine.Hypothesis{{Name: "baseline"}, {Name: "fix", Files: []engine.File{{Path: "v.txt", Content: []byte("good\n"), Mode: 0o644}}}}
}

func TestTimelineShowsInterruptedRun(t *testing.T) {
	store, ws := snap.Store{Root: t.TempDir()}, t.TempDir()
	recordRun(t, store, ws, "20260101-000000.000-aaaaaa", 0, fixHyps(), report("20260101-000000.000-aaaaaa", ws, "fix", "fix", "baseline"))
	dead := recordRun(t, store, ws, "20260101-000001.000-dead00", deadPID(t), fixHyps(), nil)
	dead.AppendEvent(engine.Event{Kind: engine.KindHypStarted, Run: dead.ID, Hyp: "fix"})
	going := recordRun(t, store, ws, "20260101-000002.000-live00", os.Getpid(), fixHyps(), nil)
	defer going.Finish(report(going.ID, ws, "", "baseline", "fix"))

	m := New(Options{Renderer: renderer(termenv.Ascii), Store: &store, Workspace: ws})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	d := newDriver(t, m)
	d.run(m.Init())
	d.until("the timeline", func() bool { return len(m.tl.runs) == 3 })
	for range paneTimeline {
		d.key("tab")
	}
	v := m.View()
	for _, want := range []string{"★ fix", "✗ interrupted", "○ running"} {
		if !strings.Contains(v, want) {
			t.Errorf("timeline lacks %q:\n%s", want, v)
		}
	}
	if m.tl.runs[1].State != snap.StateInterrupted || m.tl.runs[2].State != snap.StateRunning {
		t.Errorf("states %s %s", m.tl.runs[1].State, m.tl.runs[2].State)
	}
	// Open the interrupted run: its header says so, and fix shows the
	// start it got before its recorder died.
	d.key("up")
	d.until("the interrupted run", func() bool { return m.shown != nil && m.shown.id == dead.ID })
	if !m.shown.interrupted || m.shown.byName["fix"].status != engine.StatusRunning {
		t.Errorf("interrupted view: %+v", m.shown)
	}
	if v := m.View(); !strings.Contains(v, "interrupted · 0/2 done") {
		t.Errorf("header does not say interrupted:\n%s", v)
	}
}

func TestWatchFollowsRunsThroughSnapFollow(t *testing.T) {
	store, ws := snap.Store{Root: t.TempDir()}, "/w"
	gone := "20251231-000000.000-dead00" // interrupted long ago
	recordRun(t, store, ws, gone, deadPID(t), []engine.Hypothesis{{Name: "one"}}, nil)
	old := "20260101-000000.000-aaaaaa"
	recordRun(t, store, ws, old, 0, []engine.Hypothesis{{Name: "one"}}, report(old, ws, "one", "one"))

	m := New(Options{Renderer: renderer(termenv.Ascii), Store: &store, Watch: true, Workspace: ws})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m.followCh = snap.Follow(ctx, store.WorkspaceDir(ws), snap.FollowOptions{Poll: 10 * time.Millisecond})
	d := newDriver(t, m)
	d.run(m.Init())
	// Nothing going: the newest run is shown as recorded.
	d.until("the newest recorded run", func() bool { return m.shown != nil && m.shown.id == old })
	if m.shown.winner() != "one" {
		t.Errorf("recorded run without its report")
	}
	// The follower yields the old interrupted run too: it is not shown.
	d.until("the old interrupted run", func() bool { rv := m.followed[gone]; return rv != nil && rv.interrupted })
	if m.shown.id != old {
		t.Errorf("watch switched to %s, an older run than the newest", m.shown.id)
	}

	// Another writer starts a run: watch switches to it and follows it.
	hyps := []engine.Hypothesis{{Name: "two"}, {Name: "three"}}
	id := "20260101-000001.000-bbbbbb"
	r := recordRun(t, store, ws, id, os.Getpid(), hyps, nil)
	d.until("the new run", func() bool { return m.live != nil && m.live.id == id && m.shown == m.live && len(m.live.hyps) == 2 })
	r.AppendEvent(engine.Event{Kind: engine.KindHypStarted, Run: id, Hyp: "two"})
	r.AppendEvent(engine.Event{Kind: engine.KindOutput, Run: id, Hyp: "two", Text: "checking two\n"})
	d.until("the appended events", func() bool {
		h := m.live.byName["two"]
		return h.status == engine.StatusRunning && h.out.n > 0
	})
	// Its report, with no run_finished event before it, ends it.
	res := &engine.Result{Name: "two", Status: engine.StatusPassed, Rank: 1}
	r.AppendEvent(engine.Event{Kind: engine.KindHypFinished, Run: id, Hyp: "two", Result: res})
	rep := report(id, ws, "two", "two", "three")
	if err := r.Finish(rep); err != nil {
		t.Fatal(err)
	}
	d.until("the report", func() bool { return m.live.winner() == "two" })
	d.until("the timeline", func() bool { return len(m.tl.runs) == 3 && m.tl.runs[2].State == snap.StateFinished })
	if v := m.View(); !strings.Contains(v, "★ winner two") {
		t.Errorf("winner not on screen:\n%s", v)
	}

	// A run whose recorder dies shows as interrupted.
	dead := "20260101-000002.000-dead00"
	recordRun(t, store, ws, dead, deadPID(t), hyps, nil)
	d.until("the interrupted run", func() bool { return m.live.id == dead && m.live.interrupted })
	if v := m.View(); !strings.Contains(v, "interrupted · 0/2 done") {
		t.Errorf("interrupted run:\n%s", v)
	}
	if _, cmd := m.Update(press("q")); !isQuit(cmd) {
		t.Errorf("q quits watch at once")
	}
}

func TestApplyRecordedHypFromTimeline(t *testing.T) {
	store, ws := snap.Store{Root: t.TempDir()}, t.TempDir()
	v := filepath.Join(ws, "v.txt")
	if err := os.WriteFile(v, []byte("bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := "20260101-000000.000-aaaaaa"
	recordRun(t, store, ws, first, 0, fixHyps(), report(first, ws, "fix", "fix", "baseline"))
	second := "20260101-000001.000-bbbbbb"
	recordRun(t, store, ws, second, 0, fixHyps(), report(second, ws, "fix", "fix", "baseline"))

	m := New(Options{Renderer: renderer(termenv.Ascii), Store: &store, Workspace: ws})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	d := newDriver(t, m)
	d.run(m.Init())
	d.until("the timeline", func() bool { return len(m.tl.runs) == 2 })
	for range paneTimeline {
		d.key("tab")
	}
	d.key("up") // the first run
	d.until("the first run", func() bool { return m.shown != nil && m.shown.id == first })
	if m.selected().name != "fix" {
		t.Fatalf("the winner is selected, got %s", m.selected().name)
	}
	// a asks, n declines: nothing written.
	d.key("a")
	if m.ask.kind != confirmApply || !strings.Contains(m.View(), "Apply "+first+"/fix to the checkout") {
		t.Fatalf("a must ask first:\n%s", m.View())
	}
	d.key("n")
	if b, _ := os.ReadFile(v); string(b) != "bad\n" || m.ask.kind != confirmNone {
		t.Fatalf("n must apply nothing")
	}
	// a, y applies in a command, as shadow apply RUN/HYP does.
	d.key("a")
	_, cmd := m.Update(press("y"))
	if cmd == nil {
		t.Fatalf("y must return the apply command")
	}
	if b, _ := os.ReadFile(v); string(b) != "bad\n" {
		t.Fatalf("Update wrote the file itself")
	}
	m.Update(cmd())
	if b, _ := os.ReadFile(v); string(b) != "good\n" {
		t.Errorf("apply did not write: %q", b)
	}
	if !strings.Contains(m.status, "applied "+first+"/fix") {
		t.Errorf("status %q", m.status)
	}
	// The second run started from bad too; the checkout now differs from
	// that (someone edits it): refused, nothing written.
	if err := os.WriteFile(v, []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d.key("down")
	d.until("the second run", func() bool { return m.shown != nil && m.shown.id == second })
	d.key("a")
	_, cmd = m.Update(press("y"))
	m.Update(cmd())
	if b, _ := os.ReadFile(v); string(b) != "edited\n" {
		t.Errorf("a conflicting apply wrote: %q", b)
	}
	if !strings.Contains(m.status, "not applied: changed in the checkout since the run started: v.txt") {
		t.Errorf("status %q", m.status)
	}
	// The baseline changes nothing.
	m.selectName("baseline")
	d.key("a")
	_, cmd = m.Update(press("y"))
	m.Update(cmd())
	if !strings.Contains(m.status, "changes nothing") {
		t.Errorf("status %q", m.status)
	}
}
