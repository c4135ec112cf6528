//go:build linux

package run

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/internal/fsutil"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/test/e2e"
)

func TestSnapConcurrentRuns(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("v.txt", "bad\n", 0o644)
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		spec := e.SpecFile(fmt.Sprint("s", i), map[string]any{"hypotheses": []any{
			map[string]any{"name": fmt.Sprint("fix", i), "edits": []any{e2e.Edit("v.txt", "good\n")}},
			map[string]any{"name": "baseline"},
		}})
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, _, codes[i] = e.Shadow("--headless", "-C", e.WS, spec, "--", "sh", "-c", "sleep 0.5; "+e2e.CheckScript)
		}(i)
	}
	wg.Wait()
	if codes[0] != 0 || codes[1] != 0 {
		t.Fatalf("exit codes %v", codes)
	}
	d := e.Log()
	if len(d.Runs) != 2 {
		t.Fatalf("%d runs recorded, want 2", len(d.Runs))
	}
	seen := map[string]bool{}
	for _, r := range d.Runs {
		if r.State != "finished" || r.Winner == nil || r.Statuses["passed"] != 1 || r.Statuses["failed"] != 1 || len(r.Hypotheses) != 2 {
			t.Errorf("run %+v", r)
		}
		seen[*r.Winner] = true
		out, stderr, code := e.Shadow("show", "-C", e.WS, r.Run+"/"+*r.Winner)
		if code != 0 || !strings.Contains(out, "+good") || !strings.Contains(out, "1 passed") {
			t.Errorf("show %s/%s: exit %d\n%s%s", r.Run, *r.Winner, code, out, stderr)
		}
	}
	if !seen["fix0"] || !seen["fix1"] {
		t.Errorf("winners %v", seen)
	}
}

func TestSnapCrashMidRecord(t *testing.T) {
	e := e2e.NewEnv(t)
	marker := "432." + fmt.Sprint(os.Getpid())
	spec := e.SpecFile("crash", map[string]any{"hypotheses": []any{
		map[string]any{"name": "quick", "edits": []any{e2e.Edit("q.txt", "q\n")}},
		map[string]any{"name": "slow", "edits": []any{e2e.Edit("s.txt", "s\n")}},
	}})
	// The killed shadow cannot remove its sandboxes (overlayfs leaves
	// work/work mode 000, which TempDir's cleanup cannot enter as a user).
	t.Cleanup(func() { fsutil.RemoveTree(filepath.Join(e.State, "shadow", "sandboxes")) })
	c := e.Cmd("--headless", "-C", e.WS, spec, "--", "sh", "-c", `if test -e s.txt; then echo slow-started; sleep `+marker+`; fi; echo done`)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	e2e.WaitPresent(t, marker)
	// Kill only once "quick" is recorded as finished.
	for i := 0; ; i++ {
		logs, _ := filepath.Glob(filepath.Join(e.State, "shadow", "workspaces", "*", "runs", "*", "events.ndjson"))
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
	e2e.WaitGone(t, marker)

	d := e.Log()
	if len(d.Runs) != 1 {
		t.Fatalf("runs %+v", d.Runs)
	}
	r := d.Runs[0]
	if r.State != "interrupted" || r.Statuses["passed"] != 1 || len(r.Hypotheses) != 2 {
		t.Errorf("crashed run: %+v", r)
	}
	out, _, code := e.Shadow("log", "-C", e.WS)
	if code != 0 || !strings.Contains(out, "interrupted") || !strings.Contains(out, "1 unfinished") {
		t.Errorf("log text: exit %d\n%s", code, out)
	}
	out, _, code = e.Shadow("show", "-C", e.WS, "@last")
	if code != 0 || !strings.Contains(out, "interrupted") || !strings.Contains(out, "did not finish") {
		t.Errorf("show run: exit %d\n%s", code, out)
	}
	out, stderr, code := e.Shadow("show", "-C", e.WS, "@last/slow")
	if code != 0 || !strings.Contains(out, "slow-started") || !strings.Contains(out, "+s") {
		t.Errorf("show slow: exit %d\n%s%s", code, out, stderr)
	}
	// What it recorded can still be built on.
	spec2 := e.SpecFile("after", map[string]any{"hypotheses": []any{map[string]any{"name": "next", "base": "@last/slow"}}})
	if out, stderr, code := e.Shadow("--headless", "-C", e.WS, spec2, "--", "cat", "s.txt"); code != 0 {
		t.Errorf("base on an interrupted run: exit %d\n%s%s", code, out, stderr)
	}
}

func TestSnapBaseChainThreeGenerations(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("a.txt", "a0\n", 0o644)
	e.Write("gone.txt", "x\n", 0o644)
	check := `cat a.txt b.txt c.txt 2>&1; test ! -e gone.txt && echo GONE`
	run := func(name string, hyp map[string]any) *engine.Report {
		t.Helper()
		spec := e.SpecFile(name, map[string]any{"hypotheses": []any{hyp}})
		out, stderr, code := e.Shadow("--headless", "--json", "-C", e.WS, spec, "--", "sh", "-c", check)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", name, code, out, stderr)
		}
		return e.Report(out)
	}
	run("g1", map[string]any{"name": "g1", "edits": []any{e2e.Edit("a.txt", "a1\n")}, "delete": []string{"gone.txt"}})
	r2 := run("g2", map[string]any{"name": "g2", "base": "@last/g1", "edits": []any{e2e.Edit("b.txt", "b2\n")}})
	// Generation 3 names its base by a prefix of the run id.
	prefix := r2.Run[:len(r2.Run)-3]
	r3 := run("g3", map[string]any{"name": "g3", "base": prefix + "/g2", "patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a1\n+a3\n",
		"edits": []any{e2e.Edit("c.txt", "c3\n")}})
	h := r3.Hypotheses[0]
	if !strings.Contains(h.OutputTail, "a3\nb2\nc3\nGONE") {
		t.Errorf("generation 3 saw:\n%s", h.OutputTail)
	}
	if strings.Join(h.Files, ",") != "a.txt,b.txt,c.txt" || strings.Join(h.Deleted, ",") != "gone.txt" {
		t.Errorf("files %v deleted %v", h.Files, h.Deleted)
	}
	out, _, _ := e.Shadow("show", "--json", "-C", e.WS, "@last/g3")
	var doc struct {
		BaseRun string `json:"base_run"`
	}
	json.Unmarshal([]byte(out), &doc)
	if doc.BaseRun != r2.Run+"/g2" {
		t.Errorf("base_run %q, want %s/g2", doc.BaseRun, r2.Run)
	}
	if b, _ := os.ReadFile(filepath.Join(e.WS, "a.txt")); string(b) != "a0\n" {
		t.Errorf("checkout touched: %q", b)
	}

	// An unknown base is a spec refusal naming the hypothesis and the
	// field; nothing is recorded.
	before := len(e.Log().Runs)
	for _, ref := range []string{"@last/nope", "nope/g1", "20990101/g1"} {
		spec := e.SpecFile("bad", map[string]any{"hypotheses": []any{map[string]any{"name": "h", "base": ref}}})
		_, stderr, code := e.Shadow("--headless", "-C", e.WS, spec, "--", "true")
		if code != 2 || !strings.Contains(stderr, `hypothesis "h"`) || !strings.Contains(stderr, "base") {
			t.Errorf("base %q: exit %d: %s", ref, code, stderr)
		}
	}
	if after := len(e.Log().Runs); after != before {
		t.Errorf("refused specs recorded runs: %d -> %d", before, after)
	}
}

func TestSnapStaleWithConcurrentEdit(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("v.txt", "good\n", 0o644)
	e.Write("same.txt", "same\n", 0o644)
	spec := e.SpecFile("stale", map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}}})
	rep, code := e.RunEditing(func() {
		e.Write("v.txt", "edited\n", 0o644)
		later := time.Now().Add(time.Minute)
		os.Chtimes(filepath.Join(e.WS, "same.txt"), later, later) // touched, same bytes
	}, "-C", e.WS, spec, "--", "sh", "-c", e.WaitEdited()+"cat v.txt")
	if code != 0 || !rep.Stale || strings.Join(rep.StalePaths, ",") != "v.txt" {
		t.Fatalf("exit %d stale %v paths %v", code, rep.Stale, rep.StalePaths)
	}
	out, _, _ := e.Shadow("show", "-C", e.WS, "@last")
	if !strings.Contains(out, "stale") || !strings.Contains(out, "v.txt") {
		t.Errorf("show does not say stale:\n%s", out)
	}
	if d := e.Log(); !d.Runs[0].Stale {
		t.Errorf("log: %+v", d.Runs[0])
	}
}

func TestSnapFreezeUnaffectedByEdit(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("v.txt", "good\n", 0o644)
	e.Write("src/lib.txt", "lib\n", 0o640)
	mt := time.Date(2001, 2, 3, 4, 5, 6, 123456789, time.UTC)
	os.Chtimes(filepath.Join(e.WS, "v.txt"), mt, mt)
	spec := e.SpecFile("freeze", map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "other", "edits": []any{e2e.Edit("src/lib.txt", "lib2\n")}},
	}})
	script := e.WaitEdited() + `date -r v.txt +MTIME=%s.%N; cat src/lib.txt; test -e src/new.txt && echo NEW; ` + e2e.CheckScript
	rep, code := e.RunEditing(func() {
		e.Write("v.txt", "bad\n", 0o644)
		e.Write("src/lib.txt", "changed\n", 0o644)
		e.Write("src/new.txt", "new\n", 0o644)
	}, "--freeze", "-C", e.WS, spec, "--", "sh", "-c", script)
	if code != 0 {
		t.Fatalf("exit %d: %+v", code, rep)
	}
	h := e2e.ByName(rep)
	if h["baseline"].Status != "passed" || !strings.Contains(h["baseline"].OutputTail, "MTIME=981173106.123456789") ||
		!strings.Contains(h["baseline"].OutputTail, "lib\n") || !strings.Contains(h["other"].OutputTail, "lib2\n") {
		t.Errorf("frozen view: baseline %q\nother %q", h["baseline"].OutputTail, h["other"].OutputTail)
	}
	// A path created during the run is the one change that can reach it.
	if !rep.Frozen || strings.Join(rep.StalePaths, ",") != "src/new.txt" {
		t.Errorf("frozen %v stale paths %v", rep.Frozen, rep.StalePaths)
	}
	if b, _ := os.ReadFile(filepath.Join(e.WS, "v.txt")); string(b) != "bad\n" {
		t.Errorf("the user's edit is gone: %q", b)
	}
	left, _ := filepath.Glob(filepath.Join(e.State, "shadow", "sandboxes", "frozen-*"))
	if len(left) != 0 {
		t.Errorf("frozen copies left: %v", left)
	}
}

func TestSnapKeepShowsWrittenAndApply(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("v.txt", "bad\n", 0o755)
	e.Write("old.txt", "old\n", 0o644)
	spec := e.SpecFile("keep", map[string]any{"hypotheses": []any{
		map[string]any{"name": "fix", "edits": []any{e2e.Edit("v.txt", "good\n")}},
	}})
	out, stderr, code := e.Shadow("--headless", "--keep", "-C", e.WS, spec, "--", "sh", "-c", "mkdir -p build; echo o > build/out.o; rm old.txt; "+e2e.CheckScript)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	out, _, _ = e.Shadow("show", "--json", "-C", e.WS, "@last/fix")
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
	e.Write("v.txt", "user\n", 0o755)
	if _, stderr, code := e.Shadow("apply", "-C", e.WS, "@last/fix"); code != 1 || !strings.Contains(stderr, "v.txt") {
		t.Errorf("conflicting apply: exit %d %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(e.WS, "v.txt")); string(b) != "user\n" {
		t.Errorf("user's edit clobbered: %q", b)
	}
	// ... written, mode kept, when it did not.
	e.Write("v.txt", "bad\n", 0o755)
	if out, stderr, code := e.Shadow("apply", "-C", e.WS, "@last/fix"); code != 0 {
		t.Errorf("apply: exit %d %s%s", code, out, stderr)
	}
	if fi, _ := os.Stat(filepath.Join(e.WS, "v.txt")); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v", fi.Mode())
	}
	if b, _ := os.ReadFile(filepath.Join(e.WS, "v.txt")); string(b) != "good\n" {
		t.Errorf("not applied: %q", b)
	}
	for _, ref := range []string{"@last/none", "zzz/fix", "fix"} {
		if _, _, code := e.Shadow("apply", "-C", e.WS, ref); code != 2 {
			t.Errorf("apply %s: exit %d, want 2", ref, code)
		}
	}
}
