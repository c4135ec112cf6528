//go:build linux

package shard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/test/e2e"
)

// A Go module with three tests and candidates that fix none, some or all
// of them in different ways: enough to exercise every ranking key (tier,
// failing, passing, changed lines, spec order), ties and fixed/broken.
func shardFixture(e *e2e.Env) string {
	e.Write("go.mod", "module m\n\ngo 1.21\n", 0o644)
	e.Write("calc.go", calc(false, false, false, ""), 0o644)
	e.Write("calc_test.go", `package m

import "testing"

func TestA(t *testing.T) { if A() != 1 { t.Fatal("A") } }
func TestB(t *testing.T) { if B() != 2 { t.Fatal("B") } }
func TestC(t *testing.T) { if C() != 3 { t.Fatal("C") } }
`, 0o644)
	edit := func(name, content string) map[string]any {
		return map[string]any{"name": name, "edits": []any{map[string]any{"path": "calc.go", "content": content}}}
	}
	return e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		edit("all", calc(true, true, true, "")),
		edit("all-long", calc(true, true, true, "// one\n// two\n// three\n")),
		edit("all-twin", calc(true, true, true, "")+"\n"),
		edit("ab", calc(true, true, false, "")),
		edit("a", calc(true, false, false, "")),
		edit("bc", calc(false, true, true, "")),
		edit("nocompile", "package m\n\nfunc A( int { return 1 }\n"),
		edit("bc-long", calc(false, true, true, "// x\n// y\n")),
	}})
}

func calc(a, b, c bool, extra string) string {
	v := func(ok bool, good int) int {
		if ok {
			return good
		}
		return 0
	}
	return fmt.Sprintf("package m\n\n%sfunc A() int { return %d }\nfunc B() int { return %d }\nfunc C() int { return %d }\n", extra, v(a, 1), v(b, 2), v(c, 3))
}

// order is the report's hypotheses by rank, with what ranking and the
// verdict say of each.
func order(r *engine.Report) string {
	var b strings.Builder
	for _, h := range r.Hypotheses {
		fmt.Fprintf(&b, "%d %s %s fixed=%v broken=%v ties=%v\n", h.Rank, h.Name, h.Status, h.Fixed, h.Broken, h.TiesWith)
	}
	return b.String()
}

// The shards of a run, merged, rank exactly as the unsharded run of the
// same spec: same order, same winner, same fixed/broken and ties, every
// hypothesis once, the baseline once.
func TestShardMergeEqualsUnshardedRun(t *testing.T) {
	e := e2e.NewEnv(t)
	spec := shardFixture(e)
	gocmd := []string{"--", "go", "test", "-v", "-count=1", "."}
	args := func(extra ...string) []string {
		return append(append([]string{"--headless", "--json", "-C", e.WS, "--no-record", "-j", "2"}, extra...), append([]string{spec}, gocmd...)...)
	}
	out, stderr, code := e.Shadow(args()...)
	if code != 0 {
		t.Fatalf("unsharded: exit %d\n%s", code, stderr)
	}
	whole := e.Report(out)

	var files []string
	seen := map[string]int{}
	for k := 0; k < 3; k++ {
		out, stderr, code := e.Shadow(args("--shard", fmt.Sprintf("%d/3", k))...)
		if code != 0 && code != 1 {
			t.Fatalf("shard %d: exit %d\n%s", k, code, stderr)
		}
		r := e.Report(out)
		if r.Shard == nil || r.Shard.Index != k || r.Shard.Count != 3 || len(r.Shard.Hypotheses) != 9 {
			t.Fatalf("shard %d: report's shard = %+v", k, r.Shard)
		}
		for _, h := range r.Hypotheses {
			seen[h.Name]++
		}
		if e2e.ByName(r)["baseline"] == nil {
			t.Errorf("shard %d did not run the baseline", k)
		}
		p := filepath.Join(e.Dir, fmt.Sprintf("shard%d.json", k))
		os.WriteFile(p, []byte(out), 0o644)
		files = append(files, p)
	}
	for _, h := range whole.Hypotheses {
		want := 1
		if h.Name == "baseline" {
			want = 3
		}
		if seen[h.Name] != want {
			t.Errorf("%s ran in %d shards, want %d", h.Name, seen[h.Name], want)
		}
	}

	out, stderr, code = e.Shadow(append([]string{"merge", "--json"}, files...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, out, stderr)
	}
	merged := e.Report(out)
	if got, want := order(merged), order(whole); got != want {
		t.Errorf("merged ranking differs from the unsharded run's:\n--- merged\n%s--- unsharded\n%s", got, want)
	}
	if merged.Winner == nil || whole.Winner == nil || *merged.Winner != *whole.Winner {
		t.Errorf("winner: merged %v, unsharded %v", merged.Winner, whole.Winner)
	}
	if fmt.Sprint(merged.MergedFrom) != "[0 1 2]" {
		t.Errorf("merged_from = %v", merged.MergedFrom)
	}

	// The text report and the event stream as input work too.
	ev, _, _ := e.Shadow(append([]string{"--headless", "--events", "-C", e.WS, "--no-record", "--shard", "1/3", spec}, gocmd...)...)
	evFile := filepath.Join(e.Dir, "shard1.ndjson")
	os.WriteFile(evFile, []byte(ev), 0o644)
	out, stderr, code = e.Shadow("merge", files[0], evFile, files[2])
	if code != 0 || !strings.Contains(out, "winner: "+*whole.Winner) {
		t.Errorf("merge of JSON and NDJSON shards: exit %d\n%s\n%s", code, out, stderr)
	}
}

// Every refusal names what is wrong and exits 2, printing no report.
func TestShardMergeRefusals(t *testing.T) {
	e := e2e.NewEnv(t)
	spec := shardFixture(e)
	run := func(extra ...string) string {
		out, stderr, code := e.Shadow(append(append([]string{"--headless", "--json", "-C", e.WS, "--no-record"}, extra...), spec, "--", "go", "test", "-count=1", ".")...)
		if code != 0 && code != 1 {
			t.Fatalf("%v: exit %d\n%s", extra, code, stderr)
		}
		return out
	}
	write := func(name, content string) string {
		p := filepath.Join(e.Dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	s0 := write("s0.json", run("--shard", "0/2"))
	s1 := write("s1.json", run("--shard", "1/2"))
	other := write("o1.json", run("--shard", "1/3"))
	plain := write("plain.json", run())
	e.Write("calc_test.go", "package m\n", 0o644) // another commit's worth of tests: the spec digest is the same
	diffCmdOut, _, _ := e.Shadow("--headless", "--json", "-C", e.WS, "--no-record", "--shard", "1/2", spec, "--", "go", "vet", ".")
	diffCmd := write("cmd1.json", diffCmdOut)
	notShadow := write("x.json", `{"schema":"something/v1"}`)
	for _, c := range []struct {
		name  string
		files []string
		want  string
	}{
		{"missing index", []string{s0}, "shard 1 of 2 missing"},
		{"duplicate index", []string{s0, s1, s1}, "shard 1 is given twice"},
		{"other count", []string{s0, other}, "not one run's shards"},
		{"not a shard", []string{s0, plain}, "is not a shard"},
		{"other command", []string{s0, diffCmd}, "another command"},
		{"not shadow's", []string{s0, notShadow}, "not a shadow report"},
	} {
		out, stderr, code := e.Shadow(append([]string{"merge", "--json"}, c.files...)...)
		// --json: a refusal's stdout is an error object, never a report.
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Contains(out, "shadow.report/v1") || !strings.Contains(out, `"exit_code": 2`) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 naming %q", c.name, code, out, stderr, c.want)
		}
	}
	// merge --apply of shards that ran outside git: nothing says what
	// their checkout held, so nothing is written or recorded (exit 3).
	if _, stderr, code := e.Shadow("merge", "--apply", "--spec", spec, "-C", e.WS, s0, s1); code != 3 || !strings.Contains(stderr, "outside git") {
		t.Errorf("merge --apply outside git: exit %d, %s", code, stderr)
	}
	if out, _, _ := e.Shadow("log", "--json", "-C", e.WS); strings.Contains(out, `"run"`) {
		t.Errorf("a refused merge --apply was recorded:\n%s", out)
	}
	// The same spec on a workspace at another commit is refused.
	e2e.GitIn(t, e.WS, "init", "-q")
	e2e.GitIn(t, e.WS, "add", "-A")
	e2e.GitIn(t, e.WS, "commit", "-q", "-m", "one")
	a := write("g0.json", run("--shard", "0/2"))
	e.Write("extra.txt", "x\n", 0o644)
	e2e.GitIn(t, e.WS, "add", "-A")
	e2e.GitIn(t, e.WS, "commit", "-q", "-m", "two")
	b := write("g1.json", run("--shard", "1/2"))
	if _, stderr, code := e.Shadow("merge", a, b); code != 2 || !strings.Contains(stderr, "another commit") {
		t.Errorf("shards of two commits: exit %d, %s", code, stderr)
	}
	// An index from the environment, said in the report.
	e.ExtraEnv = append(e.ExtraEnv, "SLURM_ARRAY_TASK_ID=1")
	r := e.Report(run("--shard", "/2"))
	if r.Shard == nil || r.Shard.Index != 1 || r.Shard.IndexEnv != "SLURM_ARRAY_TASK_ID" {
		t.Errorf("index from $SLURM_ARRAY_TASK_ID: shard %+v", r.Shard)
	}
	if _, stderr, code := e.Shadow("--headless", "-C", e.WS, "--no-record", "--shard", "2/2", spec, "--", "true"); code != 2 || !strings.Contains(stderr, "K must be") {
		t.Errorf("--shard 2/2: exit %d %s", code, stderr)
	}
}

// The cross phase across shards (docs/cli.md, "Shards"): testdata/judge/go in
// 3 shards puts the overfit (which passes the checkout's tests) in shard 1 and
// the two fixes that bring a reproduction in shards 0 and 2. Each shard runs
// every proposal of the spec on the checkout and on its own passing
// candidates, so the merge knows the overfit fails both reproductions and
// ranks it below the fixes, as the unsharded run does: same order, same
// winner, same proposed_tests and cross. Before shards ran the whole spec's
// proposals, the overfit (first in spec order, fewest changed lines) won the
// merge.
func TestShardMergeCrossAcrossShards(t *testing.T) {
	rn := e2e.JudgeRunners(t)[2]
	if rn.Dir != "go" {
		t.Fatalf("judgeRunners()[2] is %s, want go", rn.Dir)
	}
	e, flags := e2e.JudgeEnv(t, rn)
	spec := e2e.JudgeSpec(t, rn, "spec.json")
	args := func(extra ...string) []string {
		a := append(append(append([]string{}, flags...), "--headless", "--json", "-C", e.WS, "--no-record", "-j", "2"), extra...)
		return append(append(a, spec, "--"), rn.Command...)
	}
	out, stderr, code := e.Shadow(args()...)
	if code != 0 {
		t.Fatalf("unsharded: exit %d\n%s", code, stderr)
	}
	whole := e.Report(out)
	var files []string
	shardOf := map[string]int{}
	for k := 0; k < 3; k++ {
		out, stderr, code := e.Shadow(args("--shard", fmt.Sprintf("%d/3", k))...)
		if code != 0 && code != 1 {
			t.Fatalf("shard %d: exit %d\n%s", k, code, stderr)
		}
		r := e.Report(out)
		for _, h := range r.Hypotheses {
			if h.Name != "baseline" {
				shardOf[h.Name] = k
			}
		}
		if r.Shard == nil || r.Shard.Cross == nil {
			t.Fatalf("shard %d carries no cross outcomes: %+v", k, r.Shard)
		}
		p := filepath.Join(e.Dir, fmt.Sprintf("cross%d.json", k))
		os.WriteFile(p, []byte(out), 0o644)
		files = append(files, p)
	}
	// The premise: the overfit shares no shard with a proposer.
	if o := shardOf["overfit"]; o == shardOf["fix_newfile"] || o == shardOf["fix_append"] {
		t.Fatalf("shards %v: the overfit shares a shard with a proposer; the test needs them apart", shardOf)
	}
	out, stderr, code = e.Shadow(append([]string{"merge", "--json"}, files...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, out, stderr)
	}
	merged := e.Report(out)
	crossOrder := func(r *engine.Report) string {
		var b strings.Builder
		for _, h := range r.Hypotheses {
			fmt.Fprintf(&b, "%d %s %s ties=%v proposed=%s", h.Rank, h.Name, h.Status, h.TiesWith, e2e.ProposedString(h.ProposedTests))
			if h.Cross != nil {
				fmt.Fprintf(&b, " cross passed=%v failed=%v", h.Cross.Passed, h.Cross.Failed)
			}
			if h.RankKey != nil {
				fmt.Fprintf(&b, " cross_failed=%d", h.RankKey.CrossFailed)
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	if got, want := crossOrder(merged), crossOrder(whole); got != want {
		t.Errorf("merged ranking differs from the unsharded run's:\n--- merged\n%s--- unsharded\n%s", got, want)
	}
	if merged.Winner == nil || *merged.Winner == "overfit" || whole.Winner == nil || *merged.Winner != *whole.Winner {
		t.Errorf("winner: merged %v, unsharded %v", e2e.Deref(merged.Winner), e2e.Deref(whole.Winner))
	}
	if m := e2e.ByName(merged); m["overfit"].Rank < m["fix"].Rank || m["overfit"].RankKey.CrossFailed != 2 {
		t.Errorf("overfit: rank %d (fix %d), cross_failed %d: it fails both fixes' reproductions", m["overfit"].Rank, m["fix"].Rank, m["overfit"].RankKey.CrossFailed)
	}
	if len(merged.MergeNotes) != 0 {
		t.Errorf("merge notes where the shards agree: %q", merged.MergeNotes)
	}
}
