//go:build linux

package mcp

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/internal/mcpserver"
	"github.com/shadow-dev/shadow/test/e2e"
)

// The asynchronous path of docs/agents.md, through the SDK's own client
// over the binary's stdio, as an agent takes it: shadow_run with
// "wait": false, then shadow_wait.

// progressLog is what a client heard, per progress token, and when.
type progressLog struct {
	mu    sync.Mutex
	notes map[any][]timedProgress
}

type timedProgress struct {
	at time.Time
	p  *mcp.ProgressNotificationParams
}

func (l *progressLog) of(token any) []timedProgress {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]timedProgress(nil), l.notes[token]...)
}

// newAsyncMCPEnv is newMCPEnv with a progress log that keeps each
// notification's time.
func newAsyncMCPEnv(t *testing.T, e *e2e.Env) (*e2e.MCPEnv, *progressLog) {
	t.Helper()
	m := &e2e.MCPEnv{Env: e}
	pl := &progressLog{notes: map[any][]timedProgress{}}
	c := e.Cmd("mcp", "-C", e.WS)
	c.Stderr = &e2e.TestWriter{T: t}
	client := mcp.NewClient(&mcp.Implementation{Name: "shadow-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			pl.mu.Lock()
			pl.notes[req.Params.ProgressToken] = append(pl.notes[req.Params.ProgressToken], timedProgress{time.Now(), req.Params})
			pl.mu.Unlock()
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: c, TerminateDuration: 20 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect to shadow mcp: %v", err)
	}
	m.Cs = cs
	t.Cleanup(func() { cs.Close() })
	return m, pl
}

// comparable is a RunDoc without what differs between two runs of one spec.
func comparable(d *mcpserver.RunDoc) mcpserver.RunDoc {
	c := *d
	c.RunID, c.DurationMS, c.Links = "", 0, mcpserver.Links{}
	return c
}

// wait:false returns the run's id at once, state running; shadow_wait
// then gives the very result a synchronous call gives for the same spec.
func TestMCPAsyncRunThenWaitIsTheSynchronousResult(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("v.txt", "bad\n", 0o644)
	m, _ := newAsyncMCPEnv(t, e)
	spec := map[string]any{
		"hypotheses": []any{map[string]any{"name": "baseline"}, hyp("fix", "good\n"), hyp("wrong", "worse\n")},
		"command":    []string{"sh", "-c", "sleep 1; " + e2e.CheckScript},
	}
	syncDoc := e2e.Structured[mcpserver.RunDoc](t, m.MustCall("shadow_run", spec))
	if syncDoc.Winner == nil || *syncDoc.Winner != "fix" || syncDoc.State != "finished" {
		t.Fatalf("synchronous run: %+v", syncDoc)
	}
	async := map[string]any{"wait": false}
	for k, v := range spec {
		async[k] = v
	}
	start := time.Now()
	res := m.MustCall("shadow_run", async)
	started := e2e.Structured[mcpserver.RunDoc](t, res)
	if res.IsError || started.State != "running" || started.RunID == "" || started.Winner != nil {
		t.Fatalf("wait:false: %v %+v\n%s", res.IsError, started, e2e.Text(res))
	}
	// Not a timing target: a result in state running, no hypothesis
	// finished, can only come before the run ended.
	for _, h := range started.Hypotheses {
		if h.Status != "queued" && h.Status != "running" {
			t.Errorf("wait:false answered after %s finished (%v): it must not wait for the commands", h.Name, time.Since(start))
		}
	}
	var done *mcpserver.RunDoc
	for i := 0; i < 10 && (done == nil || done.State == "running"); i++ {
		w := m.MustCall("shadow_wait", map[string]any{"run_id": started.RunID, "timeout_s": 30})
		if w.IsError {
			t.Fatalf("shadow_wait: %s", e2e.Text(w))
		}
		done = e2e.Structured[mcpserver.RunDoc](t, w)
	}
	if !reflect.DeepEqual(comparable(done), comparable(syncDoc)) {
		a, _ := json.MarshalIndent(comparable(done), "", " ")
		b, _ := json.MarshalIndent(comparable(syncDoc), "", " ")
		t.Errorf("shadow_wait's result differs from the synchronous call's:\n%s\n---\n%s", a, b)
	}
	if done.RunID != started.RunID {
		t.Errorf("shadow_wait answered for run %s, want %s", done.RunID, started.RunID)
	}
	// A run this server no longer follows is answered from its record.
	if w := m.MustCall("shadow_wait", map[string]any{"run_id": syncDoc.RunID}); w.IsError || e2e.Structured[mcpserver.RunDoc](t, w).Summary != syncDoc.Summary {
		t.Errorf("shadow_wait of a finished run: %s", e2e.Text(w))
	}
	if bad := m.MustCall("shadow_wait", map[string]any{"run_id": "nope"}); !bad.IsError || !strings.Contains(e2e.Text(bad), "run_id") {
		t.Errorf("shadow_wait of no run: %v %s", bad.IsError, e2e.Text(bad))
	}
}

// A run of ~40 s whose command prints nothing: every call following it
// (a synchronous shadow_run, and shadow_wait of an asynchronous one)
// hears progress at least every 15 s, saying what is done and what is
// still going; shadow_show gives the live state; a shadow_wait bound
// returns "running". The commands sleep: the test costs no CPU.
func TestMCPLongRunSendsProgressEvery15s(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("v.txt", "bad\n", 0o644)
	m, pl := newAsyncMCPEnv(t, e)
	spec := func(marker string) map[string]any {
		return map[string]any{
			"hypotheses": []any{hyp("quick", "good\n"), map[string]any{"name": "silent", "edits": []any{map[string]any{"path": "slow", "content": "x"}}}},
			"command":    []string{"sh", "-c", "if [ -e slow ]; then sleep " + marker + "; fi; " + e2e.CheckScript},
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	var syncRes *mcp.CallToolResult
	var syncErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		syncRes, syncErr = m.Call(ctx, "shadow_run", spec("40"), "sync")
	}()
	async := spec("40.5")
	async["wait"] = false
	started := e2e.Structured[mcpserver.RunDoc](t, m.MustCall("shadow_run", async))
	if started.State != "running" {
		t.Fatalf("wait:false: %+v", started)
	}
	// The live state, while quick has finished and silent runs.
	var live *mcpserver.RunDoc
	waitFor(t, "quick finished in the live state", func() bool {
		live = e2e.Structured[mcpserver.RunDoc](t, m.MustCall("shadow_show", map[string]any{"ref": started.RunID}))
		return len(live.Hypotheses) == 2 && live.Hypotheses[0].Status == "passed"
	})
	if live.State != "running" || live.Hypotheses[1].Status != "running" || !strings.Contains(live.Summary, "1/2 done: quick passed") {
		t.Errorf("live state: %+v", live)
	}
	// A bounded wait returns running once its bound passes.
	t0 := time.Now()
	w := e2e.Structured[mcpserver.RunDoc](t, m.MustCall("shadow_wait", map[string]any{"run_id": started.RunID, "timeout_s": 2}))
	if w.State != "running" || time.Since(t0) > 10*time.Second {
		t.Errorf("shadow_wait with timeout_s 2: state %s after %v", w.State, time.Since(t0))
	}
	// Then a wait to the end, with progress.
	res, err := m.Call(ctx, "shadow_wait", map[string]any{"run_id": started.RunID, "timeout_s": 120}, "wait")
	if err != nil || res.IsError {
		t.Fatalf("shadow_wait: %v %s", err, e2e.Text(res))
	}
	if d := e2e.Structured[mcpserver.RunDoc](t, res); d.State != "finished" || d.Winner == nil || *d.Winner != "quick" {
		t.Errorf("shadow_wait's result: %+v", d)
	}
	wg.Wait()
	if syncErr != nil || syncRes.IsError {
		t.Fatalf("synchronous shadow_run: %v", syncErr)
	}
	waitEnd := time.Now()
	for _, tok := range []any{"sync", "wait"} {
		notes := pl.of(tok)
		if len(notes) == 0 {
			t.Errorf("%s: no progress", tok)
			continue
		}
		prev, last := notes[0].at, -1.0
		sawSilent := false
		for _, n := range notes {
			if gap := n.at.Sub(prev); gap > 15*time.Second {
				t.Errorf("%s: %v without progress before %q", tok, gap.Round(time.Second), n.p.Message)
			}
			if n.p.Progress <= last {
				t.Errorf("%s: progress %v after %v: it must increase", tok, n.p.Progress, last)
			}
			prev, last = n.at, n.p.Progress
			if strings.Contains(n.p.Message, "1/2 done: quick passed; running: silent") && strings.Contains(n.p.Message, "no output yet") {
				sawSilent = true
			}
		}
		if tok == "wait" && waitEnd.Sub(prev) > 15*time.Second {
			t.Errorf("wait: %v without progress before the result", waitEnd.Sub(prev))
		}
		if !sawSilent {
			t.Errorf("%s: no message says quick passed and silent runs, silent: %q", tok, notes[len(notes)/2].p.Message)
		}
		t.Logf("%s: %d progress notifications, the last %q", tok, len(notes), notes[len(notes)-1].p.Message)
	}
}

// Cancelling shadow_wait ends the run (its commands are gone, its
// sandboxes removed) and its partial report stays readable: shadow_show
// and the report resource say cancelled, with what finished before.
// shadow_wait's cancel does the same without cancelling a call.
func TestMCPCancelledWaitLeavesAReadablePartialReport(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("v.txt", "bad\n", 0o644)
	m, _ := newAsyncMCPEnv(t, e)
	marker := "331." + strconv.Itoa(os.Getpid())
	start := func(sleep string) *mcpserver.RunDoc {
		d := e2e.Structured[mcpserver.RunDoc](t, m.MustCall("shadow_run", map[string]any{
			"hypotheses": []any{hyp("quick", "good\n"), map[string]any{"name": "stuck", "edits": []any{map[string]any{"path": "slow", "content": "x"}}}},
			"command":    []string{"sh", "-c", "if [ -e slow ]; then sleep " + sleep + "; fi; " + e2e.CheckScript},
			"wait":       false,
		}))
		e2e.WaitPresent(t, sleep)
		waitFor(t, "quick finished", func() bool {
			live := e2e.Structured[mcpserver.RunDoc](t, m.MustCall("shadow_show", map[string]any{"ref": d.RunID}))
			return len(live.Hypotheses) == 2 && live.Hypotheses[0].Status == "passed"
		})
		return d
	}
	check := func(how string, d *mcpserver.RunDoc, sleep string) {
		e2e.WaitGone(t, sleep)
		waitNoSandboxes(t, e)
		var shown *mcpserver.RunDoc
		waitFor(t, how+": the cancelled run's record", func() bool {
			shown = e2e.Structured[mcpserver.RunDoc](t, m.MustCall("shadow_show", map[string]any{"ref": d.RunID}))
			return shown.State == "cancelled"
		})
		st := map[string]string{}
		for _, h := range shown.Hypotheses {
			st[h.Name] = h.Status
		}
		if st["quick"] != "passed" || st["stuck"] != "cancelled" || shown.Winner != nil || !strings.HasPrefix(shown.Summary, "no winner: the run was cancelled") {
			t.Errorf("%s: the partial report: %+v", how, shown)
		}
		if rep := m.Report(shown); !rep.Cancelled || len(rep.Hypotheses) != 2 {
			t.Errorf("%s: the report resource: cancelled %v, %d hypotheses", how, rep.Cancelled, len(rep.Hypotheses))
		}
	}

	d := start(marker + "1")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(time.Second); cancel() }()
	if _, err := m.Call(ctx, "shadow_wait", map[string]any{"run_id": d.RunID, "timeout_s": 120}, nil); err == nil {
		t.Errorf("a cancelled shadow_wait returned no error")
	}
	check("cancelled call", d, marker+"1")

	d = start(marker + "2")
	res := m.MustCall("shadow_wait", map[string]any{"run_id": d.RunID, "cancel": true})
	if w := e2e.Structured[mcpserver.RunDoc](t, res); res.IsError || w.State != "cancelled" {
		t.Errorf("shadow_wait cancel: %v %+v", res.IsError, w)
	}
	check("cancel: true", d, marker+"2")
	// The server goes on serving.
	if res := m.MustCall("shadow_probe", map[string]any{}); res.IsError {
		t.Errorf("after the cancels: %s", e2e.Text(res))
	}
}
