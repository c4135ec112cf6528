//go:build linux

package shard

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
	"github.com/shadow-dev/shadow/test/e2e"
)

// mergeApplyEnv is shardFixture in a git checkout, committed, and its
// three shards' JSON reports.
func mergeApplyEnv(t *testing.T) (e *e2e.Env, spec string, files []string) {
	e = e2e.NewEnv(t)
	spec = shardFixture(e)
	e2e.GitIn(t, e.WS, "init", "-q")
	e2e.GitIn(t, e.WS, "add", "-A")
	e2e.GitIn(t, e.WS, "commit", "-q", "-m", "the bug")
	for k := 0; k < 3; k++ {
		out, stderr, code := e.Shadow("--headless", "--json", "-C", e.WS, "--no-record", "-j", "2", "--shard", fmt.Sprintf("%d/3", k), spec, "--", "go", "test", "-v", "-count=1", ".")
		if code != 0 && code != 1 {
			t.Fatalf("shard %d: exit %d\n%s", k, code, stderr)
		}
		p := filepath.Join(e.Dir, fmt.Sprintf("apply%d.json", k))
		os.WriteFile(p, []byte(out), 0o644)
		files = append(files, p)
	}
	return e, spec, files
}

// merge --apply writes the winner as shadow apply would, from the spec
// resolved here, and records the merged report like a run: shadow log
// lists it (a merge of 3 shards), shadow show prints the winner's diff,
// shadow apply of it again finds it applied, and writes it after a revert.
// Before --apply, merge wrote nothing and recorded nothing.
func TestShardMergeApply(t *testing.T) {
	e, spec, files := mergeApplyEnv(t)
	orig := e.Read("calc.go")
	args := append([]string{"merge", "--json", "--apply", "--spec", spec, "-C", e.WS}, files...)
	out, stderr, code := e.Shadow(args...)
	if code != 0 {
		t.Fatalf("merge --apply: exit %d\n%s\n%s", code, out, stderr)
	}
	rep := e.Report(out)
	if rep.Winner == nil || *rep.Winner != "all" || fmt.Sprint(rep.Applied) != "[calc.go]" || rep.Run == "" || rep.Workspace != e.WS {
		t.Fatalf("winner %v applied %v run %q workspace %q", e2e.Deref(rep.Winner), rep.Applied, rep.Run, rep.Workspace)
	}
	if got, want := e.Read("calc.go"), calc(true, true, true, ""); got != want {
		t.Errorf("calc.go after merge --apply:\n%s\nwant\n%s", got, want)
	}
	// Recorded like a run.
	out, _, code = e.Shadow("log", "--json", "-C", e.WS)
	if code != 0 || !strings.Contains(out, rep.Run) {
		t.Errorf("shadow log: exit %d, no %s:\n%s", code, rep.Run, out)
	}
	out, _, code = e.Shadow("log", "-C", e.WS)
	if code != 0 || !strings.Contains(out, "merge of 3 shards") {
		t.Errorf("shadow log names no merge of 3 shards: exit %d\n%s", code, out)
	}
	// shadow watch follows it as a run: its events, then its end.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var kinds []string
	state := ""
	for f := range snap.Follow(ctx, (snap.Store{Root: filepath.Join(e.State, "shadow")}).WorkspaceDir(e.WS), snap.FollowOptions{All: true}) {
		switch {
		case f.Run != rep.Run:
		case f.Kind == snap.FollowEvent:
			kinds = append(kinds, f.Event.Kind)
		case f.Kind == snap.FollowEnd:
			state = f.State
			cancel()
		}
	}
	if state != snap.StateFinished || len(kinds) < 3 || kinds[0] != engine.KindRunStarted || kinds[len(kinds)-1] != engine.KindRunFinished {
		t.Errorf("followed the merge's record: state %q, events %v", state, kinds)
	}
	out, stderr, code = e.Shadow("show", "-C", e.WS, rep.Run)
	if code != 0 || !strings.Contains(out, "winner: all") || strings.Contains(out+stderr, "WARNING") {
		t.Errorf("shadow show RUN: exit %d\n%s\n%s", code, out, stderr)
	}
	out, stderr, code = e.Shadow("show", "-C", e.WS, rep.Run+"/all")
	if code != 0 || !strings.Contains(out, "+func A() int { return 1 }") || strings.Contains(out+stderr, "WARNING") {
		t.Errorf("shadow show RUN/all: exit %d\n%s\n%s", code, out, stderr)
	}
	out, stderr, code = e.Shadow("apply", "-C", e.WS, rep.Run+"/all")
	if code != 0 || !strings.Contains(out, "already") {
		t.Errorf("shadow apply again: exit %d\n%s\n%s", code, out, stderr)
	}
	e.Write("calc.go", orig, 0o644)
	out, stderr, code = e.Shadow("apply", "-C", e.WS, "@last/all")
	if code != 0 || e.Read("calc.go") != calc(true, true, true, "") {
		t.Errorf("shadow apply @last/all after a revert: exit %d\n%s\n%s", code, out, stderr)
	}
}

// Every refusal of merge --apply writes nothing: no --spec (2), a spec
// that resolves to other files than the shards ran (2), a target changed
// since the shards' commit (1), a HEAD moved since (1; --force applies
// when the targets still hold the commit's version), and a forged shard
// report cannot make it write anything but the spec's hypothesis.
func TestShardMergeApplyRefusals(t *testing.T) {
	e, spec, files := mergeApplyEnv(t)
	orig := e.Read("calc.go")
	merge := func(extra ...string) (string, string, int) {
		return e.Shadow(append(append([]string{"merge", "--apply", "-C", e.WS}, extra...), files...)...)
	}
	if _, stderr, code := merge(); code != 2 || !strings.Contains(stderr, "--spec") {
		t.Errorf("no --spec: exit %d %s", code, stderr)
	}
	if _, stderr, code := e.Shadow(append([]string{"merge", "--force"}, files...)...); code != 2 || !strings.Contains(stderr, "go with --apply") {
		t.Errorf("--force without --apply: exit %d %s", code, stderr)
	}
	// The same names, another file's bytes: not what the shards ran.
	var sp map[string]any
	b, _ := os.ReadFile(spec)
	json.Unmarshal(b, &sp)
	hs := sp["hypotheses"].([]any)
	hs[1].(map[string]any)["edits"].([]any)[0].(map[string]any)["content"] = "package m\n\nfunc A() int { return 666 }\n"
	b, _ = json.Marshal(sp)
	other := filepath.Join(e.Dir, "other.json")
	os.WriteFile(other, b, 0o644)
	if _, stderr, code := merge("--spec", other); code != 2 || !strings.Contains(stderr, "other files than the shards ran") || e.Read("calc.go") != orig {
		t.Errorf("another spec: exit %d %s", code, stderr)
	}
	if out, _, _ := e.Shadow("log", "--json", "-C", e.WS); strings.Contains(out, `"run"`) {
		t.Errorf("a refused merge --apply was recorded:\n%s", out)
	}
	// A target changed since the shards' commit (not committed).
	dirty := orig + "// mine\n"
	e.Write("calc.go", dirty, 0o644)
	if out, stderr, code := merge("--spec", spec); code != 1 || e.Read("calc.go") != dirty || !strings.Contains(out, "changed in the checkout") {
		t.Errorf("dirty target: exit %d\n%s\n%s", code, out, stderr)
	}
	e.Write("calc.go", orig, 0o644)
	// HEAD moved (a commit that does not touch calc.go).
	e.Write("NOTES", "x\n", 0o644)
	e2e.GitIn(t, e.WS, "add", "NOTES")
	e2e.GitIn(t, e.WS, "commit", "-q", "-m", "notes")
	if out, stderr, code := merge("--spec", spec); code != 1 || e.Read("calc.go") != orig || !strings.Contains(out, "moved since the shards ran") {
		t.Errorf("moved HEAD: exit %d\n%s\n%s", code, out, stderr)
	}

	// A forged shard report: the winner's diff, files and judge_edits name
	// another file and other code; its spec digest and base are the
	// shards'. --apply writes the spec's "all", nothing else.
	var winnerShard string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		var r engine.Report
		json.Unmarshal(b, &r)
		for _, h := range r.Hypotheses {
			if h.Name == "all" {
				winnerShard = f
				h.Diff = "--- a/evil.sh\n+++ b/evil.sh\n@@ -0,0 +1 @@\n+rm -rf ~\n"
				h.Files = []string{"evil.sh", "calc.go"}
				h.JudgeEdits = []string{"calc.go"}
			}
		}
		if winnerShard == f {
			b, _ = json.Marshal(&r)
			os.WriteFile(f, b, 0o644)
		}
	}
	if winnerShard == "" {
		t.Fatal("no shard ran all")
	}
	out, stderr, code := merge("--spec", spec, "--force", "--json")
	if code != 0 {
		t.Fatalf("--force over a moved HEAD: exit %d\n%s\n%s", code, out, stderr)
	}
	if got := e.Read("calc.go"); got != calc(true, true, true, "") {
		t.Errorf("calc.go:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "evil.sh")); err == nil {
		t.Errorf("a forged report's file was written")
	}
	rep := e.Report(out)
	for _, h := range rep.Hypotheses {
		if h.Name == "all" && (len(h.JudgeEdits) != 0 || fmt.Sprint(h.Files) != "[calc.go]" || strings.Contains(h.Diff, "evil")) {
			t.Errorf("the record keeps the forged judge_edits %v, files %v or diff %q (made here from the spec)", h.JudgeEdits, h.Files, h.Diff)
		}
	}
}
