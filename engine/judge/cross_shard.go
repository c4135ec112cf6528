package judge

import (
	"github.com/shadow-dev/shadow/engine/checkout"

	"sort"
	"strconv"
	"strings"
)

// The cross phase of a shard (--shard K/N). Every shard knows the whole
// spec, so it plans every candidate's proposals, not only its slice's:
// resolving a hypothesis's proposed tests runs nothing. It runs all of
// them on the checkout and on each of its own candidates that passed, and
// each of its own proposers' tests on that proposer, as one unsharded run
// does for every candidate; the groups of proposals are the same in every
// shard (spec order, first fit), so each job is the one the unsharded run
// would make. The report's shard.cross_outcomes carry what the jobs saw, and
// `shadow merge` recomputes proposed_tests[].reproduces, cross and the
// rank key's cross part from every shard's (mergeCross): a reproduction
// proposed in one shard reorders candidates of another, as unsharded.
//
// The checkout's jobs run in every shard (each needs their outcomes for
// its own proposers' verdicts, and no shard waits for another); the merge
// takes the outcome they agree on, and a test whose outcome differs
// between shards (flaky on the checkout) reproduces nothing, which the
// merged report's merge_notes says.
//
// What a shard costs more than before: the checkout's jobs and its passing
// candidates' jobs for the other shards' proposals (one job per target
// and group, the proposed tests only where the runner can select them).

// Outcome words of ShardCross.
const (
	crossWordPass = "pass"
	crossWordFail = "fail"
)

// newRunCrossPhase is the run's cross phase: over the run's hypotheses,
// or, in a shard, over every hypothesis of the whole spec (their judge
// splits and checkout originals computed here; splits is not changed).
func newRunCrossPhase(cfg *Config, jd *judge, splits map[string]judgeSplit, orig map[string]FileState) *crossPhase {
	if cfg.Shard == nil || len(cfg.ShardHyps) == 0 || cfg.NoCross || cfg.NewParser == nil {
		return newCrossPhase(cfg, jd, splits, orig, cfg.Hyps)
	}
	all := cfg.ShardHyps
	allOrig := checkout.ReadOriginals(cfg.Workspace, all)
	for p, st := range orig {
		allOrig[p] = st // the run's own reads stand for its hypotheses' paths
	}
	allSplits := make(map[string]judgeSplit, len(all))
	for _, h := range all {
		if s, ok := splits[h.Name]; ok {
			allSplits[h.Name] = s
		} else {
			allSplits[h.Name] = splitJudge(jd, h, existedIn(allOrig))
		}
	}
	return newCrossPhase(cfg, jd, allSplits, allOrig, all)
}

// shardInfo is the report's shard field: info with what the cross phase
// saw (nil cp: the phase did not run, no cross).
func (cp *crossPhase) shardInfo(info *ShardInfo, results []*result) *ShardInfo {
	if info == nil || cp == nil {
		return info
	}
	out := *info
	out.Cross = cp.table(results)
	return &out
}

// table is what the jobs saw, by target: the checkout, and each of the
// run's hypotheses whose code some job ran.
func (cp *crossPhase) table(results []*result) *ShardCross {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	words := func(m map[string]map[string]crossOutcome) map[string]map[string]string {
		out := map[string]map[string]string{}
		for p, tests := range m {
			for t, o := range tests {
				w := ""
				switch o {
				case crossPass:
					w = crossWordPass
				case crossFail:
					w = crossWordFail
				default:
					continue
				}
				if out[p] == nil {
					out[p] = map[string]string{}
				}
				out[p][t] = w
			}
		}
		return out
	}
	t := &ShardCross{Checkout: words(cp.out[cp.baseKey]), Targets: map[string]map[string]map[string]string{}}
	for _, r := range results {
		if m, ok := cp.out[cp.keys[r.Name]]; ok {
			if w := words(m); len(w) > 0 {
				t.Targets[r.Name] = w
			}
		}
	}
	return t
}

// crossTestName is how cross refs and ShardCross name a proposed test.
func crossTestName(p ProposedTest) string {
	return proposedTest{path: p.Path, name: p.Test, lang: testLang(p.Path)}.String()
}

// mergeCross recomputes, over the shards' cross outcomes, what an
// unsharded run's cross phase gives (crossPhase.finish): each proposer's
// proposed_tests[].reproduces (fails on the checkout, passes on its own
// candidate, as the proposer's shard ran it), each passing candidate's
// cross against every other proposer's reproductions (as its own shard
// ran them), and the rank key's cross_failed and outcomes. results are
// the merged results (copies: changed in place); from maps a result to
// the shard index it came from; names is the spec's order. It returns the
// notes of the merged report (checkout outcomes the shards disagree on).
func mergeCross(shards map[int]*Report, indexes []int, results []*Result, from map[string]int, names []string) ([]string, error) {
	var with, without []int
	for _, k := range indexes {
		if shards[k].Shard.Cross != nil {
			with = append(with, k)
		} else {
			without = append(without, k)
		}
	}
	if len(with) == 0 {
		return nil, nil
	}
	if len(without) > 0 {
		return nil, mergeErr("merge: shard %d ran the cross phase and shard %d did not (--no-cross given to one of them, or a shadow too old to carry shard.cross_outcomes): run every shard with the same flags and shadow", with[0], without[0])
	}
	// The checkout's outcome of each proposal, by the shards that saw it.
	seen := map[string]map[string]map[string][]int{}
	for _, k := range indexes {
		for p, tests := range shards[k].Shard.Cross.Checkout {
			for t, o := range tests {
				if seen[p] == nil {
					seen[p] = map[string]map[string][]int{}
				}
				if seen[p][t] == nil {
					seen[p][t] = map[string][]int{}
				}
				seen[p][t][o] = append(seen[p][t][o], k)
			}
		}
	}
	var notes []string
	checkout := func(p, t string) string {
		by := seen[p][t]
		if len(by) == 1 {
			for o := range by {
				return o
			}
		}
		return ""
	}
	for _, p := range keysOf(seen) {
		for _, t := range keysOf(seen[p]) {
			if by := seen[p][t]; len(by) > 1 {
				notes = append(notes, "cross: "+p+"'s proposed test "+t+" "+disagreement(by)+" on the checkout: it reproduces nothing in this merge (flaky?)")
			}
		}
	}
	targets := func(r string) map[string]map[string]string {
		k, ok := from[r]
		if !ok {
			return nil
		}
		return shards[k].Shard.Cross.Targets[r]
	}
	byName := map[string]*Result{}
	for _, r := range results {
		byName[r.Name] = r
	}
	repro := map[string][]string{}
	for _, n := range names {
		r := byName[n]
		if r == nil || len(r.ProposedTests) == 0 {
			continue
		}
		pts := append([]ProposedTest{}, r.ProposedTests...)
		for i, pt := range pts {
			t := crossTestName(pt)
			b, own := checkout(n, t), targets(n)[n][t]
			pts[i].Reproduces = nil
			if b != "" && own != "" {
				v := b == crossWordFail && own == crossWordPass
				pts[i].Reproduces = &v
				if v {
					repro[n] = append(repro[n], t)
				}
			}
		}
		r.ProposedTests = pts
	}
	for _, r := range results {
		if r.Status != StatusPassed {
			continue
		}
		c := &Cross{Passed: []CrossRef{}, Failed: []CrossRef{}}
		mine := targets(r.Name)
		for _, p := range names {
			if p == r.Name {
				continue
			}
			for _, t := range repro[p] {
				ref := CrossRef{From: p, Test: t}
				switch mine[p][t] {
				case crossWordPass:
					c.Passed = append(c.Passed, ref)
				case crossWordFail:
					c.Failed = append(c.Failed, ref)
				}
			}
		}
		r.Cross = c
	}
	// Weighed as an unsharded run weighs them (cross_weigh.go), from the
	// outcomes alone: the shards' reports do not carry where a test failed.
	rs := make([]*result, 0, len(results))
	for _, r := range results {
		rs = append(rs, &result{Result: r})
	}
	weighCross(rs, func(target, proposer, test string) crossOutcome {
		switch targets(target)[proposer][test] {
		case crossWordPass:
			return crossPass
		case crossWordFail:
			return crossFail
		}
		return crossUnknown
	}, nil)
	for _, r := range results {
		if r.Status != StatusPassed || r.Cross == nil {
			continue
		}
		if r.RankKey != nil {
			k := *r.RankKey
			k.CrossFailed = crossFailedFrom(r)
			if k.TestOutcomes != "" {
				k.Outcomes = outcomesDigest(k.TestOutcomes, r.Cross)
			}
			r.RankKey = &k
		}
	}
	return notes, nil
}

// disagreement words which shards saw which outcome: "failed in shards
// 0, 2 and passed in shard 1".
func disagreement(by map[string][]int) string {
	words := map[string]string{crossWordFail: "failed", crossWordPass: "passed"}
	var parts []string
	for _, o := range keysOf(by) {
		ks := by[o]
		sort.Ints(ks)
		s := words[o] + " in shard"
		if len(ks) > 1 {
			s += "s"
		}
		strs := make([]string, len(ks))
		for i, k := range ks {
			strs[i] = strconv.Itoa(k)
		}
		parts = append(parts, s+" "+strings.Join(strs, ", "))
	}
	return strings.Join(parts, " and ")
}

// keysOf is a map's keys, sorted.
func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
