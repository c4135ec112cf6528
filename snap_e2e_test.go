//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/internal/fsutil"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/records"
	"github.com/shadow-dev/shadow/overlay"
)

// specFile writes a spec under its own name (concurrent runs need several).
func (e *env) specFile(name string, v any) string {
	e.t.Helper()
	b, _ := json.Marshal(v)
	p := filepath.Join(e.dir, name+".json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

type snapLogDoc struct {
	Schema string            `json:"schema"`
	Runs   []records.Summary `json:"runs"`
}

func (e *env) log() snapLogDoc {
	e.t.Helper()
	out, stderr, code := e.shadow("log", "--json", "-C", e.ws)
	if code != 0 {
		e.t.Fatalf("log: exit %d %s", code, stderr)
	}
	var d snapLogDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.Schema != "shadow.log/v1" {
		e.t.Fatalf("log --json: %v\n%s", err, out)
	}
	return d
}

func edit(path, content string) map[string]any {
	return map[string]any{"path": path, "content": content}
}

func TestSnapConcurrentRuns(t *testing.T) {
	e := newEnv(t)
	e.write("v.txt", "bad\n", 0o644)
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		spec := e.specFile(fmt.Sprint("s", i), map[string]any{"hypotheses": []any{
			map[string]any{"name": fmt.Sprint("fix", i), "edits": []any{edit("v.txt", "good\n")}},
			map[string]any{"name": "baseline"},
		}})
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, _, codes[i] = e.shadow("--headless", "-C", e.ws, spec, "--", "sh", "-c", "sleep 0.5; "+checkScript)
		}(i)
	}
	wg.Wait()
	if codes[0] != 0 || codes[1] != 0 {
		t.Fatalf("exit codes %v", codes)
	}
	d := e.log()
	if len(d.Runs) != 2 {
		t.Fatalf("%d runs recorded, want 2", len(d.Runs))
	}
	seen := map[string]bool{}
	for _, r := range d.Runs {
		if r.State != "finished" || r.Winner == nil || r.Statuses["passed"] != 1 || r.Statuses["failed"] != 1 || len(r.Hypotheses) != 2 {
			t.Errorf("run %+v", r)
		}
		seen[*r.Winner] = true
		out, stderr, code := e.shadow("show", "-C", e.ws, r.Run+"/"+*r.Winner)
		if code != 0 || !strings.Contains(out, "+good") || !strings.Contains(out, "1 passed") {
			t.Errorf("show %s/%s: exit %d\n%s%s", r.Run, *r.Winner, code, out, stderr)
		}
	}
	if !seen["fix0"] || !seen["fix1"] {
		t.Errorf("winners %v", seen)
	}
}

func TestSnapCrashMidRecord(t *testing.T) {
	e := newEnv(t)
	marker := "432." + fmt.Sprint(os.Getpid())
	spec := e.specFile("crash", map[string]any{"hypotheses": []any{
		map[string]any{"name": "quick", "edits": []any{edit("q.txt", "q\n")}},
		map[string]any{"name": "slow", "edits": []any{edit("s.txt", "s\n")}},
	}})
	// The killed shadow cannot remove its sandboxes (overlayfs leaves
	// work/work mode 000, which TempDir's cleanup cannot enter as a user).
	t.Cleanup(func() { fsutil.RemoveTree(filepath.Join(e.state, "shadow", "sandboxes")) })
	c := e.cmd("--headless", "-C", e.ws, spec, "--", "sh", "-c", `if test -e s.txt; then echo slow-started; sleep `+marker+`; fi; echo done`)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitPresent(t, marker)
	// Kill only once "quick" is recorded as finished.
	for i := 0; ; i++ {
		logs, _ := filepath.Glob(filepath.Join(e.state, "shadow", "workspaces", "*", "runs", "*", "events.ndjson"))
		if len(logs) == 1 {
			if b, _ := os.ReadFile(logs[0]); strings.Contains(string(b), `"kind":"hyp_finished","hyp":"quick"`) {
				break
			}
		}
		if i == 400 {
			t.Fatal("quick never finished")
		}
		time.Sleep(25 * time.Millisecond)
	}
	c.Process.Kill()
	c.Wait()
	waitGone(t, marker)

	d := e.log()
	if len(d.Runs) != 1 {
		t.Fatalf("runs %+v", d.Runs)
	}
	r := d.Runs[0]
	if r.State != "interrupted" || r.Statuses["passed"] != 1 || len(r.Hypotheses) != 2 {
		t.Errorf("crashed run: %+v", r)
	}
	out, _, code := e.shadow("log", "-C", e.ws)
	if code != 0 || !strings.Contains(out, "interrupted") || !strings.Contains(out, "1 unfinished") {
		t.Errorf("log text: exit %d\n%s", code, out)
	}
	out, _, code = e.shadow("show", "-C", e.ws, "@last")
	if code != 0 || !strings.Contains(out, "interrupted") || !strings.Contains(out, "did not finish") {
		t.Errorf("show run: exit %d\n%s", code, out)
	}
	out, stderr, code := e.shadow("show", "-C", e.ws, "@last/slow")
	if code != 0 || !strings.Contains(out, "slow-started") || !strings.Contains(out, "+s") {
		t.Errorf("show slow: exit %d\n%s%s", code, out, stderr)
	}
	// What it recorded can still be built on.
	spec2 := e.specFile("after", map[string]any{"hypotheses": []any{map[string]any{"name": "next", "base": "@last/slow"}}})
	if out, stderr, code := e.shadow("--headless", "-C", e.ws, spec2, "--", "cat", "s.txt"); code != 0 {
		t.Errorf("base on an interrupted run: exit %d\n%s%s", code, out, stderr)
	}
}

func TestSnapBaseChainThreeGenerations(t *testing.T) {
	e := newEnv(t)
	e.write("a.txt", "a0\n", 0o644)
	e.write("gone.txt", "x\n", 0o644)
	check := `cat a.txt b.txt c.txt 2>&1; test ! -e gone.txt && echo GONE`
	run := func(name string, hyp map[string]any) *engine.Report {
		t.Helper()
		spec := e.specFile(name, map[string]any{"hypotheses": []any{hyp}})
		out, stderr, code := e.shadow("--headless", "--json", "-C", e.ws, spec, "--", "sh", "-c", check)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", name, code, out, stderr)
		}
		return e.report(out)
	}
	run("g1", map[string]any{"name": "g1", "edits": []any{edit("a.txt", "a1\n")}, "delete": []string{"gone.txt"}})
	r2 := run("g2", map[string]any{"name": "g2", "base": "@last/g1", "edits": []any{edit("b.txt", "b2\n")}})
	// Generation 3 names its base by a prefix of the run id.
	prefix := r2.Run[:len(r2.Run)-3]
	r3 := run("g3", map[string]any{"name": "g3", "base": prefix + "/g2", "patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a1\n+a3\n",
		"edits": []any{edit("c.txt", "c3\n")}})
	h := r3.Hypotheses[0]
	if !strings.Contains(h.OutputTail, "a3\nb2\nc3\nGONE") {
		t.Errorf("generation 3 saw:\n%s", h.OutputTail)
	}
	if strings.Join(h.Files, ",") != "a.txt,b.txt,c.txt" || strings.Join(h.Deleted, ",") != "gone.txt" {
		t.Errorf("files %v deleted %v", h.Files, h.Deleted)
	}
	out, _, _ := e.shadow("show", "--json", "-C", e.ws, "@last/g3")
	var doc struct {
		BaseRun string `json:"base_run"`
	}
	json.Unmarshal([]byte(out), &doc)
	if doc.BaseRun != r2.Run+"/g2" {
		t.Errorf("base_run %q, want %s/g2", doc.BaseRun, r2.Run)
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "a.txt")); string(b) != "a0\n" {
		t.Errorf("checkout touched: %q", b)
	}

	// An unknown base is a spec refusal naming the hypothesis and the
	// field; nothing is recorded.
	before := len(e.log().Runs)
	for _, ref := range []string{"@last/nope", "nope/g1", "20990101/g1"} {
		spec := e.specFile("bad", map[string]any{"hypotheses": []any{map[string]any{"name": "h", "base": ref}}})
		_, stderr, code := e.shadow("--headless", "-C", e.ws, spec, "--", "true")
		if code != 2 || !strings.Contains(stderr, `hypothesis "h"`) || !strings.Contains(stderr, "base") {
			t.Errorf("base %q: exit %d: %s", ref, code, stderr)
		}
	}
	if after := len(e.log().Runs); after != before {
		t.Errorf("refused specs recorded runs: %d -> %d", before, after)
	}
}

// runEditing runs shadow with --events and calls edit when the first
// hypothesis starts; it returns the final report and the exit code.
func (e *env) runEditing(editFn func(), args ...string) (*engine.Report, int) {
	e.t.Helper()
	c := e.cmd(append([]string{"--headless", "--events"}, args...)...)
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		e.t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	var last engine.Event
	edited := false
	for sc.Scan() {
		var ev engine.Event
		json.Unmarshal(sc.Bytes(), &ev)
		if ev.Kind == engine.KindHypStarted && !edited {
			// The engine takes the start state of the sources beside the
			// starting hypotheses: edit once that scan is surely done.
			time.Sleep(time.Second)
			editFn()
			if err := os.WriteFile(e.editedMarker(), nil, 0o644); err != nil {
				e.t.Fatal(err)
			}
			edited = true
		}
		last = ev
	}
	code := 0
	if ee, ok := c.Wait().(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if last.Report == nil {
		e.t.Fatalf("no run_finished event (exit %d)", code)
	}
	return last.Report, code
}

// editedMarker is the file runEditing creates once the edit is made,
// outside the workspace; waitEdited is a shell snippet that waits for it
// (at most 10 s), so a command reads the sources after the edit without a
// fixed sleep.
func (e *env) editedMarker() string { return filepath.Join(e.dir, "edited") }

func (e *env) waitEdited() string {
	return "i=0; while [ ! -e " + e.editedMarker() + " ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; "
}

func TestSnapStaleWithConcurrentEdit(t *testing.T) {
	e := newEnv(t)
	e.write("v.txt", "good\n", 0o644)
	e.write("same.txt", "same\n", 0o644)
	spec := e.specFile("stale", map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}}})
	rep, code := e.runEditing(func() {
		e.write("v.txt", "edited\n", 0o644)
		later := time.Now().Add(time.Minute)
		os.Chtimes(filepath.Join(e.ws, "same.txt"), later, later) // touched, same bytes
	}, "-C", e.ws, spec, "--", "sh", "-c", e.waitEdited()+"cat v.txt")
	if code != 0 || !rep.Stale || strings.Join(rep.StalePaths, ",") != "v.txt" {
		t.Fatalf("exit %d stale %v paths %v", code, rep.Stale, rep.StalePaths)
	}
	out, _, _ := e.shadow("show", "-C", e.ws, "@last")
	if !strings.Contains(out, "stale") || !strings.Contains(out, "v.txt") {
		t.Errorf("show does not say stale:\n%s", out)
	}
	if d := e.log(); !d.Runs[0].Stale {
		t.Errorf("log: %+v", d.Runs[0])
	}
}

func TestSnapFreezeUnaffectedByEdit(t *testing.T) {
	e := newEnv(t)
	e.write("v.txt", "good\n", 0o644)
	e.write("src/lib.txt", "lib\n", 0o640)
	mt := time.Date(2001, 2, 3, 4, 5, 6, 123456789, time.UTC)
	os.Chtimes(filepath.Join(e.ws, "v.txt"), mt, mt)
	spec := e.specFile("freeze", map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "other", "edits": []any{edit("src/lib.txt", "lib2\n")}},
	}})
	script := e.waitEdited() + `date -r v.txt +MTIME=%s.%N; cat src/lib.txt; test -e src/new.txt && echo NEW; ` + checkScript
	rep, code := e.runEditing(func() {
		e.write("v.txt", "bad\n", 0o644)
		e.write("src/lib.txt", "changed\n", 0o644)
		e.write("src/new.txt", "new\n", 0o644)
	}, "--freeze", "-C", e.ws, spec, "--", "sh", "-c", script)
	if code != 0 {
		t.Fatalf("exit %d: %+v", code, rep)
	}
	h := byName(rep)
	if h["baseline"].Status != "passed" || !strings.Contains(h["baseline"].OutputTail, "MTIME=981173106.123456789") ||
		!strings.Contains(h["baseline"].OutputTail, "lib\n") || !strings.Contains(h["other"].OutputTail, "lib2\n") {
		t.Errorf("frozen view: baseline %q\nother %q", h["baseline"].OutputTail, h["other"].OutputTail)
	}
	// A path created during the run is the one change that can reach it.
	if !rep.Frozen || strings.Join(rep.StalePaths, ",") != "src/new.txt" {
		t.Errorf("frozen %v stale paths %v", rep.Frozen, rep.StalePaths)
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "v.txt")); string(b) != "bad\n" {
		t.Errorf("the user's edit is gone: %q", b)
	}
	left, _ := filepath.Glob(filepath.Join(e.state, "shadow", "sandboxes", "frozen-*"))
	if len(left) != 0 {
		t.Errorf("frozen copies left: %v", left)
	}
}

func TestSnapKeepShowsWrittenAndApply(t *testing.T) {
	e := newEnv(t)
	e.write("v.txt", "bad\n", 0o755)
	e.write("old.txt", "old\n", 0o644)
	spec := e.specFile("keep", map[string]any{"hypotheses": []any{
		map[string]any{"name": "fix", "edits": []any{edit("v.txt", "good\n")}},
	}})
	out, stderr, code := e.shadow("--headless", "--keep", "-C", e.ws, spec, "--", "sh", "-c", "mkdir -p build; echo o > build/out.o; rm old.txt; "+checkScript)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	out, _, _ = e.shadow("show", "--json", "-C", e.ws, "@last/fix")
	var doc struct {
		Kept    bool
		Written []overlay.UpperEntry
	}
	json.Unmarshal([]byte(out), &doc)
	got := fmt.Sprint(doc.Written)
	if !doc.Kept || got != "[{build/out.o file 2} {old.txt deleted 0}]" {
		t.Errorf("written: %v\n%s", got, out)
	}

	// apply: refused when the checkout changed since that run's start ...
	e.write("v.txt", "user\n", 0o755)
	if _, stderr, code := e.shadow("apply", "-C", e.ws, "@last/fix"); code != 1 || !strings.Contains(stderr, "v.txt") {
		t.Errorf("conflicting apply: exit %d %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "v.txt")); string(b) != "user\n" {
		t.Errorf("user's edit clobbered: %q", b)
	}
	// ... written, mode kept, when it did not.
	e.write("v.txt", "bad\n", 0o755)
	if out, stderr, code := e.shadow("apply", "-C", e.ws, "@last/fix"); code != 0 {
		t.Errorf("apply: exit %d %s%s", code, out, stderr)
	}
	if fi, _ := os.Stat(filepath.Join(e.ws, "v.txt")); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v", fi.Mode())
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "v.txt")); string(b) != "good\n" {
		t.Errorf("not applied: %q", b)
	}
	for _, ref := range []string{"@last/none", "zzz/fix", "fix"} {
		if _, _, code := e.shadow("apply", "-C", e.ws, ref); code != 2 {
			t.Errorf("apply %s: exit %d, want 2", ref, code)
		}
	}
}
