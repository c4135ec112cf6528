package snap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

func newStore(t *testing.T) (Store, string) {
	t.Helper()
	return Store{Root: t.TempDir()}, "/work/some ws"
}

func newRun(t *testing.T, s Store, ws, id string, hyps ...engine.Hypothesis) *Run {
	t.Helper()
	var names []string
	for _, h := range hyps {
		names = append(names, h.Name)
	}
	r, err := s.NewRun(Meta{Run: id, Workspace: ws, Command: []string{"true"}, StartedAt: time.Now().UTC(), Hypotheses: names}, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func hyp(name string, files map[string]string, deletes ...string) engine.Hypothesis {
	h := engine.Hypothesis{Name: name, Deletes: deletes}
	for p, c := range files {
		h.Files = append(h.Files, engine.File{Path: p, Content: []byte(c), Mode: 0o640})
	}
	return h
}

func TestRecordAndLoadDeduplicated(t *testing.T) {
	s, ws := newStore(t)
	h := hyp("fix", map[string]string{"a.txt": "same\n", "b/c.txt": "other\n"}, "old.txt")
	orig := map[string]engine.FileState{
		"a.txt":   {Exists: true, Content: []byte("before\n"), Mode: 0o644},
		"b/c.txt": {},
		"old.txt": {Exists: true, Content: []byte("same\n"), Mode: 0o600},
	}
	for _, id := range []string{"20240101-000000-aaaaaa", "20240101-000001-bbbbbb"} {
		r := newRun(t, s, ws, id, h)
		if err := r.RecordInputs([]engine.Hypothesis{h}, map[string]BaseRef{"fix": {"@last/x", "r/x"}}, orig); err != nil {
			t.Fatal(err)
		}
		r.Finish(&engine.Report{Run: id})
	}
	got, rec, err := s.LoadHyp(ws, "20240101-000001-bbbbbb", "fix")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Base != "@last/x" || rec.BaseRun != "r/x" || len(got.Files) != 2 || string(got.Files[0].Content) != "same\n" || got.Files[0].Mode != 0o640 || got.Deletes[0] != "old.txt" {
		t.Fatalf("loaded %+v %+v", got, rec)
	}
	o, err := s.LoadOriginals(ws, "20240101-000000-aaaaaa")
	if err != nil || string(o["a.txt"].Content) != "before\n" || o["b/c.txt"].Exists || o["old.txt"].Mode != 0o600 {
		t.Fatalf("originals %+v %v", o, err)
	}
	// "same\n" appears three times over two runs, "other\n" and "before\n" twice.
	var n int
	filepath.Walk(filepath.Join(s.WorkspaceDir(ws), "objects", "sha256"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n++
		}
		return nil
	})
	if n != 3 {
		t.Errorf("%d objects, want 3 (deduplicated)", n)
	}
}

func TestRefs(t *testing.T) {
	s, ws := newStore(t)
	for _, id := range []string{"20240101-000000-aaaaaa", "20240101-000001-abbbbb", "20240102-000000-cccccc"} {
		var hs []engine.Hypothesis
		if id != "20240102-000000-cccccc" {
			hs = append(hs, hyp("fix", nil))
		}
		hs = append(hs, hyp("other", nil))
		r := newRun(t, s, ws, id, hs...)
		r.RecordInputs(hs, nil, nil)
		r.Finish(&engine.Report{Run: id})
	}
	for ref, want := range map[string]string{"@last": "20240102-000000-cccccc", "20240101-000001": "20240101-000001-abbbbb", "20240102": "20240102-000000-cccccc"} {
		if got, err := s.FindRun(ws, ref); err != nil || got != want {
			t.Errorf("FindRun(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
	var re *RefError
	for _, ref := range []string{"2024", "nope", "../x", ""} {
		if _, err := s.FindRun(ws, ref); !errors.As(err, &re) {
			t.Errorf("FindRun(%q): want RefError, got %v", ref, err)
		}
	}
	if run, h, err := s.FindHyp(ws, "@last/fix"); err != nil || run != "20240101-000001-abbbbb" || h != "fix" {
		t.Errorf("@last/fix = %s %s %v", run, h, err)
	}
	for _, ref := range []string{"@last/none", "20240102/fix", "fix", "@last/", "x/y/z"} {
		if _, _, err := s.FindHyp(ws, ref); !errors.As(err, &re) {
			t.Errorf("FindHyp(%q): want RefError, got %v", ref, err)
		}
	}
	if _, err := s.FindRun("/other", "@last"); !errors.As(err, &re) {
		t.Errorf("no runs: %v", err)
	}
}

// A recorder killed half-way leaves a run with no report: it is shown as
// interrupted, with what it recorded, never as an error.
func TestInterruptedRun(t *testing.T) {
	s, ws := newStore(t)
	cmd := exec.Command("sleep", "0")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid
	r, err := s.NewRun(Meta{Run: "20240101-000000-dead00", Workspace: ws, PID: dead, Hypotheses: []string{"a", "b"}}, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	r.AppendEvent(engine.Event{Kind: engine.KindRunStarted, Hypotheses: []string{"a", "b"}})
	r.AppendEvent(engine.Event{Kind: engine.KindHypFinished, Hyp: "a", Result: &engine.Result{Name: "a", Status: "passed"}})
	r.ev.Write([]byte(`{"kind":"hyp_fin`)) // killed mid-line
	live := newRun(t, s, ws, "20240101-000001-live00", hyp("x", nil))
	defer live.ev.Close()
	// A folder whose recorder died before meta.json, long ago.
	bare := filepath.Join(s.WorkspaceDir(ws), "runs", "20240101-000002-bare00")
	os.Mkdir(bare, 0o700)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(bare, old, old)

	runs, err := s.Runs(ws)
	if err != nil || len(runs) != 3 {
		t.Fatalf("runs %v %v", runs, err)
	}
	if runs[0].State != StateInterrupted || len(runs[0].Results) != 1 || len(runs[0].Hyps) != 2 {
		t.Errorf("dead run: %+v", runs[0])
	}
	if runs[1].State != StateRunning {
		t.Errorf("live run: %s", runs[1].State)
	}
	if runs[2].State != StateInterrupted || runs[2].StartedAt().IsZero() {
		t.Errorf("bare run: %+v", runs[2])
	}
}

func TestConcurrentRecorders(t *testing.T) {
	s, ws := newStore(t)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Same id for all: the store must give each its own folder.
			h := hyp("h", map[string]string{"f": "shared content\n", fmt.Sprint("g", i): fmt.Sprint(i)})
			r, err := s.NewRunRetry(Meta{Run: "20240101-000000-same00", Workspace: ws}, []byte("{}"))
			if err != nil {
				errs <- err
				return
			}
			if err := r.RecordInputs([]engine.Hypothesis{h}, nil, nil); err != nil {
				errs <- err
			}
			for j := 0; j < 50; j++ {
				r.AppendEvent(engine.Event{Kind: engine.KindOutput, Hyp: "h", Text: fmt.Sprint(i, j)})
			}
			errs <- r.Finish(&engine.Report{Run: r.ID})
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	runs, _ := s.Runs(ws)
	if len(runs) != 16 {
		t.Fatalf("%d runs recorded, want 16", len(runs))
	}
	for _, r := range runs {
		evs, _ := ReadEvents(filepath.Join(r.Dir, "events.ndjson"))
		if r.State != StateFinished || len(evs) != 50 {
			t.Errorf("run %s: %s, %d events", r.ID, r.State, len(evs))
		}
		if _, _, err := s.LoadHyp(ws, r.ID, "h"); err != nil {
			t.Error(err)
		}
	}
}

func TestPrune(t *testing.T) {
	s, ws := newStore(t)
	now := time.Now()
	mk := func(id string, age time.Duration, content string, finish bool) {
		r, err := s.NewRun(Meta{Run: id, Workspace: ws, StartedAt: now.Add(-age)}, []byte("{}"))
		if err != nil {
			t.Fatal(err)
		}
		h := hyp("h", map[string]string{"f": content})
		r.RecordInputs([]engine.Hypothesis{h}, nil, nil)
		if finish {
			r.Finish(&engine.Report{Run: id})
		}
	}
	mk("20240101-000000-000001", 40*24*time.Hour, "old", true) // too old
	mk("20240101-000000-000002", 40*24*time.Hour, "live", false)
	mk("20240101-000000-000003", time.Hour, "a", true)
	mk("20240101-000000-000004", time.Hour, "b", true)
	mk("20240101-000000-000005", time.Hour, "c", true)
	// Objects must be past the grace period to go.
	objs := s.Objects(ws)
	later := now.Add(2 * objectGrace)
	res, err := s.Prune(Policy{MaxAge: 30 * 24 * time.Hour, MaxRuns: 2}, later)
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := s.RunIDs(ws)
	want := []string{"20240101-000000-000002", "20240101-000000-000004", "20240101-000000-000005"}
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("kept %v, want %v (removed %v)", ids, want, res.Runs)
	}
	if res.Objects != 2 {
		t.Errorf("removed %d objects, want 2 (old, a)", res.Objects)
	}
	for _, c := range []string{"live", "b", "c"} {
		if _, err := objs.Get(Hash([]byte(c))); err != nil {
			t.Errorf("object %q: %v", c, err)
		}
	}
	// A second prune at the same time removes nothing more.
	if res, _ := s.Prune(DefaultPolicy, later); len(res.Runs) != 0 || res.Objects != 0 {
		t.Errorf("second prune: %+v", res)
	}
}

func TestFollow(t *testing.T) {
	s, ws := newStore(t)
	done := newRun(t, s, ws, "20240101-000000-done00")
	done.AppendEvent(engine.Event{Kind: engine.KindRunStarted})
	done.Finish(&engine.Report{})
	live := newRun(t, s, ws, "20240101-000001-live00")
	live.AppendEvent(engine.Event{Seq: 1, Kind: engine.KindRunStarted})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := Follow(ctx, s.WorkspaceDir(ws), FollowOptions{Poll: 10 * time.Millisecond})
	next := func() Followed {
		t.Helper()
		select {
		case f, ok := <-ch:
			if !ok {
				t.Fatal("closed")
			}
			return f
		case <-time.After(5 * time.Second):
			t.Fatal("nothing followed")
		}
		return Followed{}
	}
	expectNone := func() {
		t.Helper()
		select {
		case f := <-ch:
			t.Fatalf("unexpected %+v", f)
		case <-time.After(80 * time.Millisecond):
		}
	}
	if f := next(); f.Kind != FollowRun || f.Run != live.ID || f.Meta == nil {
		t.Fatalf("first: %+v", f)
	}
	if f := next(); f.Kind != FollowEvent || f.Event.Seq != 1 {
		t.Fatalf("replayed event: %+v", f)
	}
	// A line written in two pieces is yielded once whole.
	line, _ := json.Marshal(engine.Event{Seq: 2, Kind: engine.KindOutput, Text: "hello"})
	live.ev.Write(line[:10])
	expectNone()
	live.ev.Write(append(line[10:], '\n'))
	if f := next(); f.Kind != FollowEvent || f.Event.Text != "hello" {
		t.Fatalf("completed line: %+v", f)
	}
	// A new run from another process.
	other := newRun(t, s, ws, "20240101-000002-new000")
	other.AppendEvent(engine.Event{Seq: 1, Kind: engine.KindRunStarted, Hypotheses: []string{"a"}})
	if f := next(); f.Kind != FollowRun || f.Run != other.ID {
		t.Fatalf("new run: %+v", f)
	}
	if f := next(); f.Kind != FollowEvent || f.Run != other.ID || f.Event.Hypotheses[0] != "a" {
		t.Fatalf("new run's event: %+v", f)
	}
	live.AppendEvent(engine.Event{Seq: 3, Kind: engine.KindRunFinished})
	live.Finish(&engine.Report{})
	if f := next(); f.Kind != FollowEvent || f.Event.Seq != 3 {
		t.Fatalf("last event: %+v", f)
	}
	if f := next(); f.Kind != FollowEnd || f.State != StateFinished || f.Run != live.ID {
		t.Fatalf("end: %+v", f)
	}
	cancel()
	for range ch {
	}
}
