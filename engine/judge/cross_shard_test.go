package judge

import (
	"strconv"
	"strings"
	"testing"
)

// shardPair is two shards of a spec [baseline, a, b]: a (shard 0)
// proposes a_test.go's TestX, b (shard 1, fewer changed lines) passes the
// checkout's tests; checkout1 is TestX's outcome on the checkout in shard
// 1 (shard 0 saw it fail), onB its outcome on b's code.
func shardPair(checkout1, onB string) []*Report {
	names := []string{"baseline", "a", "b"}
	key := func(lines int) *RankKey {
		return &RankKey{Tier: tierPassed, Passed: 3, Lines: lines, TestOutcomes: "same", Outcomes: outcomesDigest("same", nil)}
	}
	base := func() *Result {
		return &Result{Name: "baseline", Status: StatusFailed, RankKey: &RankKey{Tier: tierCounted, Failed: 1}}
	}
	test := "a_test.go::TestX"
	mk := func(k int, r *Result, cross *ShardCross) *Report {
		return &Report{Schema: ReportSchema, Hypotheses: []*Result{r, base()},
			Shard: &ShardInfo{Index: k, Count: 2, SpecSHA256: "s", Command: []string{"go", "test"}, Hypotheses: names, Cross: cross}}
	}
	a := &Result{Name: "a", Status: StatusPassed, RankKey: key(5), ProposedTests: []ProposedTest{{Path: "a_test.go", Test: "TestX"}}}
	b := &Result{Name: "b", Status: StatusPassed, RankKey: key(2), Cross: &Cross{Passed: []CrossRef{}, Failed: []CrossRef{}}}
	return []*Report{
		mk(0, a, &ShardCross{Checkout: map[string]map[string]string{"a": {test: "fail"}},
			Targets: map[string]map[string]map[string]string{"a": {"a": {test: "pass"}}}}),
		mk(1, b, &ShardCross{Checkout: map[string]map[string]string{"a": {test: checkout1}},
			Targets: map[string]map[string]map[string]string{"b": {"a": {test: onB}}}}),
	}
}

// b, in another shard than a, fails a's reproduction: the merge ranks it
// below a although it is smaller, and breaks their tie, as one run would.
func TestMergeCrossAcrossShards(t *testing.T) {
	m, err := MergeShards(shardPair("fail", "fail"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Hypotheses[0].Name != "a" || m.Hypotheses[1].Name != "b" || *m.Winner != "a" {
		t.Fatalf("order %s %s, winner %s: b fails a's reproduction and must rank below a", m.Hypotheses[0].Name, m.Hypotheses[1].Name, *m.Winner)
	}
	a, b := m.Hypotheses[0], m.Hypotheses[1]
	if p := a.ProposedTests[0].Reproduces; p == nil || !*p {
		t.Errorf("a's TestX reproduces %v, want true", p)
	}
	if len(b.Cross.Failed) != 1 || b.Cross.Failed[0] != (CrossRef{From: "a", Test: "a_test.go::TestX"}) || b.RankKey.CrossFailed != 1 {
		t.Errorf("b: cross %+v, cross_failed %d", b.Cross, b.RankKey.CrossFailed)
	}
	if len(a.TiesWith) != 0 || len(b.TiesWith) != 0 {
		t.Errorf("ties %v %v: the reproduction tells them apart", a.TiesWith, b.TiesWith)
	}
	if len(m.MergeNotes) != 0 {
		t.Errorf("notes %q", m.MergeNotes)
	}
	// The inputs are not changed (the shard's own result had no cross fail).
	if in := shardPair("fail", "fail"); in[1].Hypotheses[0].RankKey.CrossFailed != 0 {
		t.Fatal("fixture")
	}
}

// The shards disagree on the checkout's outcome of a proposed test: it
// reproduces nothing (null), ranks no one, and the merged report says so.
func TestMergeCrossCheckoutDisagreement(t *testing.T) {
	in := shardPair("pass", "fail")
	m, err := MergeShards(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Hypotheses[0].Name != "b" {
		t.Errorf("first %s: with no reproduction the smaller b leads", m.Hypotheses[0].Name)
	}
	for _, h := range m.Hypotheses {
		if h.Name == "a" && h.ProposedTests[0].Reproduces != nil {
			t.Errorf("a's TestX reproduces %v, want null", *h.ProposedTests[0].Reproduces)
		}
		if h.Name == "b" && (len(h.Cross.Failed) != 0 || h.RankKey.CrossFailed != 0 || len(h.TiesWith) != 1) {
			t.Errorf("b: cross %+v ties %v", h.Cross, h.TiesWith)
		}
	}
	if len(m.MergeNotes) != 1 || !strings.Contains(m.MergeNotes[0], "a's proposed test a_test.go::TestX failed in shard 0 and passed in shard 1 on the checkout") {
		t.Errorf("notes %q", m.MergeNotes)
	}
	if in[0].Hypotheses[0].ProposedTests[0].Reproduces != nil {
		t.Errorf("the merge changed a shard's report")
	}
}

// A shard that ran the cross phase and one that did not (--no-cross) are
// not one run's shards.
func TestMergeCrossRefusesMixed(t *testing.T) {
	in := shardPair("fail", "fail")
	in[1].Shard.Cross = nil
	_, err := MergeShards(in, nil)
	if err == nil || !strings.Contains(err.Error(), "shard 0 ran the cross phase and shard 1 did not") {
		t.Fatalf("err %v", err)
	}
}

// mergeBenchShards is 4 shards of 50 candidates each (a baseline in
// every shard), every candidate passing and proposing two tests; with
// cross, each shard carries every proposal's outcome on the checkout and
// on each of its candidates (what a shard of a run whose candidates all
// bring tests reports).
func mergeBenchShards(cross bool) []*Report {
	const shards, per = 4, 50
	names := []string{"baseline"}
	for i := 0; i < shards*per; i++ {
		names = append(names, "h"+strconv.Itoa(i))
	}
	tests := func(p string) []string { return []string{p + "_test.go::TestOne", p + "_test.go::TestTwo"} }
	var reps []*Report
	for k := 0; k < shards; k++ {
		r := &Report{Schema: ReportSchema, Shard: &ShardInfo{Index: k, Count: shards, SpecSHA256: "s", Command: []string{"go", "test"}, Hypotheses: names}}
		r.Hypotheses = append(r.Hypotheses, &Result{Name: "baseline", Status: StatusFailed, RankKey: &RankKey{Tier: tierCounted, Failed: 1}})
		sc := &ShardCross{Checkout: map[string]map[string]string{}, Targets: map[string]map[string]map[string]string{}}
		for _, p := range names[1:] {
			sc.Checkout[p] = map[string]string{}
			for _, t := range tests(p) {
				sc.Checkout[p][t] = crossWordFail
			}
		}
		for i := k * per; i < (k+1)*per; i++ {
			n := names[1+i]
			res := &Result{Name: n, Status: StatusPassed, RankKey: &RankKey{Tier: tierPassed, Passed: 10, Lines: i % 7, TestOutcomes: "t", Outcomes: outcomesDigest("t", nil)},
				ProposedTests: []ProposedTest{{Path: n + "_test.go", Test: "TestOne"}, {Path: n + "_test.go", Test: "TestTwo"}}}
			r.Hypotheses = append(r.Hypotheses, res)
			on := map[string]map[string]string{}
			for j, p := range names[1:] {
				on[p] = map[string]string{}
				for _, t := range tests(p) {
					on[p][t] = crossWordPass
					if (i+j)%13 == 0 {
						on[p][t] = crossWordFail
					}
				}
			}
			sc.Targets[n] = on
		}
		if cross {
			r.Shard.Cross = sc
		}
		reps = append(reps, r)
	}
	return reps
}

// BenchmarkMergeShards: what recomputing the cross phase costs a merge of
// 4 shards of 50 candidates that all bring tests, beside the same merge
// without cross outcomes (go test -bench MergeShards ./engine).
func BenchmarkMergeShards(b *testing.B) {
	for _, cross := range []bool{false, true} {
		reps := mergeBenchShards(cross)
		name := "no-cross"
		if cross {
			name = "cross"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := MergeShards(reps, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// With --confirm, a shard reruns its own leader; when another shard's
// reproduction puts that leader below an untried candidate of the same
// shard, the unsharded run would have rerun the untried one first: the
// merge names no winner rather than one the reruns did not decide, and
// says why.
func TestMergeCrossUnconfirmedLeader(t *testing.T) {
	in := shardPair("fail", "fail")
	a, b := in[0].Hypotheses[0], in[1].Hypotheses[0]
	a.Runs, a.Passes, a.RankKey.Confirmed = 2, 2, true
	// b's shard confirmed b; a second candidate there, c, bigger, untried
	// by its shard, passes a's reproduction and leads once b fails it.
	b.Runs, b.Passes, b.RankKey.Confirmed = 2, 2, true
	b.RankKey.Lines = 1
	c := &Result{Name: "c", Status: StatusPassed, Runs: 1, Passes: 1, RankKey: &RankKey{Tier: tierPassed, Passed: 3, Lines: 3, TestOutcomes: "same", Outcomes: outcomesDigest("same", nil)}}
	in[1].Hypotheses = append(in[1].Hypotheses, c)
	in[1].Shard.Cross.Targets["c"] = map[string]map[string]string{"a": {"a_test.go::TestX": "pass"}}
	for _, r := range in {
		r.Shard.Hypotheses = []string{"baseline", "a", "b", "c"}
	}
	m, err := MergeShards(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Hypotheses[0].Name != "c" || m.Winner != nil {
		t.Fatalf("first %s, winner %v: c leads untried, so no winner", m.Hypotheses[0].Name, m.Winner)
	}
	if len(m.MergeNotes) != 1 || !strings.Contains(m.MergeNotes[0], "c leads the merge but its shard did not rerun it") {
		t.Errorf("notes %q", m.MergeNotes)
	}
}
