package judge

import "sort"

// Tiers of docs/report.md, best first.
const (
	tierPassed       = iota // passed, not disqualified (with --confirm: not failed a rerun)
	tierDisqualified        // passed, but disqualified, suspicious or tampered
	tierCounted             // ran to the end with test counts
	tierNoCounts            // ran to the end, no counts (or no tests where others ran some)
	tierAborted             // timed out, error, cancelled
)

// Rank orders results as docs/report.md ("Ranking") says, from what the
// results themselves carry: it is how every reader of the contract (the
// TUI live and `shadow watch`, from the same shadow.event/v1 results) ranks
// a run that has not finished, so they agree. The judge's working state
// the run ranked on (per-test outcomes, run-time changes, the canary) is
// not part of a result: what a reader cannot know counts as absent, and a
// result ranked before (rank_key set) keeps what its key says of the
// flags (--allow-suspicious, --confirm) and of the judged lines. The
// results are changed in place as rank changes them (fixed, broken,
// edits_tests, lost_tests, disqualified, tampered, ties_with, rank,
// rank_key): pass copies to keep the originals.
func Rank(results []*Result, hyps []Hypothesis) {
	rs := make([]*result, len(results))
	for i, r := range results {
		rs[i] = fromEntry(r)
	}
	rank(rs, hyps)
	for i, r := range rs {
		results[i] = r.Result
	}
}

// RankLive ranks the finished entries of a run that has not ended, as
// every reader of shadow.event/v1 does (`shadow tui` from the events it
// receives, `shadow watch` from events.ndjson): with Rank, from the
// entries' exported fields alone, so the two always agree. finished is in
// spec order; baseline names the hypothesis the verdicts are against (""
// for none), which the events do not say: a reader without the spec names
// it by the convention, "baseline". It returns finished, ranked (the
// entries themselves are changed in place: pass copies).
func RankLive(finished []*Result, baseline string) []*Result {
	hyps := make([]Hypothesis, len(finished))
	for i, r := range finished {
		hyps[i] = Hypothesis{Name: r.Name}
		if r.Name != baseline {
			hyps[i].Deletes = []string{""} // not a baseline (IsBaseline)
		}
	}
	Rank(finished, hyps)
	return finished
}

// fromEntry is the judge's record of a result known only by its exported
// fields.
func fromEntry(r *Result) *result {
	x := &result{Result: r, judgeProposed: r.JudgeEdits, judgeChanged: without(r.EditsTests, r.JudgeEdits)}
	if k := r.RankKey; k != nil {
		x.allowSuspicious = k.Tier == tierPassed && r.Suspicious != nil
		x.confirmFailed, x.confirmed = k.ConfirmFailed, k.Confirmed
		if k.Lines != r.ChangedLines {
			x.judged, x.codeLines = true, k.Lines
		}
	}
	return x
}

// rank is Rank on the judge's records, as the run ranks its hypotheses,
// in tiers: passed and not disqualified; passed and disqualified; the rest
// that ran to the end with known counts; no counts (a run that collected
// no tests where another ran some is counted here); timed out, error,
// cancelled. Within a tier: fewer failing tests, more passing tests, fewer
// changed lines, spec order (a candidate that failed a --confirm rerun
// ranks first among the failed).
//
// It also fills in each result's verdict against the first baseline
// hypothesis: fixed, broken, edits_tests, lost_tests, disqualified and
// ties_with. hyps is in spec order, as results is on entry, and names the
// baseline (IsBaseline). rank may be called again on the same results.
func rank(results []*result, hyps []Hypothesis) {
	order := make(map[string]int, len(results))
	for i, r := range results {
		order[r.Name] = i
	}
	base := baselineOf(results, hyps)
	var baseChanged map[string]bool
	flaky := map[string]bool{}
	if base != nil {
		baseChanged = set(base.judgeChanged)
		for _, n := range base.Flaky {
			flaky[n] = true
		}
	} else {
		baseChanged = changedByAll(results)
	}
	anyRan := false
	for _, r := range results {
		anyRan = anyRan || ran(r) > 0
	}
	for _, r := range results {
		verdict(r, base, baseChanged, flaky, anyRan)
	}
	tamperVerdict(results, base)
	for _, r := range results {
		r.tier = tierOf(r, anyRan)
	}
	sort.SliceStable(results, func(i, j int) bool {
		a, b := results[i], results[j]
		if a.tier != b.tier {
			return a.tier < b.tier
		}
		if a.confirmFailed != b.confirmFailed {
			return a.confirmFailed
		}
		if fa, fb := failedCount(a), failedCount(b); fa != fb {
			return fa < fb
		}
		if pa, pb := passedCount(a), passedCount(b); pa != pb {
			return pa > pb
		}
		// Cross-examination (cross.go): a candidate that fails other
		// candidates' reproductions ranks below one that fails fewer.
		if ca, cb := crossFailedFrom(a.Result), crossFailedFrom(b.Result); ca != cb {
			return ca < cb
		}
		if la, lb := rankLines(a), rankLines(b); la != lb {
			return la < lb
		}
		return order[a.Name] < order[b.Name]
	})
	fillTies(results)
	for i, r := range results {
		r.Rank = i + 1
		r.RankKey = rankKeyOf(r)
	}
}

// Leader is the first result of the first tier after Rank, or nil: the
// winner, unless --confirm reruns still have to confirm it.
func Leader(results []*result) *result {
	for _, r := range results {
		if r.tier == tierPassed && r.Status == StatusPassed {
			return r
		}
	}
	return nil
}

func baselineOf(results []*result, hyps []Hypothesis) *result {
	for _, h := range hyps {
		if !h.IsBaseline() {
			continue
		}
		for _, r := range results {
			if r.Name == h.Name {
				return r
			}
		}
		return nil
	}
	return nil
}

// verdict fills r's fields measured against the baseline.
func verdict(r, base *result, baseChanged, baseFlaky map[string]bool, anyRan bool) {
	flaky := baseFlaky
	if len(r.Flaky) > 0 {
		flaky = map[string]bool{}
		for n := range baseFlaky {
			flaky[n] = true
		}
		for _, n := range r.Flaky {
			flaky[n] = true
		}
	}
	r.Fixed, r.Broken = fixedBroken(base, r, flaky)

	// Run-time changes the baseline's own command also made are the test
	// suite's doing (a test that writes a fixture), not the candidate's.
	edits := append([]string{}, r.judgeProposed...)
	if r != base {
		for _, p := range r.judgeChanged {
			if !baseChanged[p] {
				edits = append(edits, p)
			}
		}
	}
	r.EditsTests = sortedUnique(edits)

	r.LostTests = nil
	var lost []string
	var why string
	switch {
	case base == nil || base.Tests == nil:
	case r == base:
		zero := 0
		r.LostTests = &zero
	default:
		var n int
		n, lost, why = lostTests(base, r)
		r.LostTests = &n
	}
	r.Disqualified = nil
	if r.Status == StatusPassed && !r.allowTestEdits {
		r.Disqualified = disqualify(r, why, lost, anyRan)
	}
}

func tierOf(r *result, anyRan bool) int {
	switch r.Status {
	case StatusPassed, StatusFailed:
	default:
		return tierAborted
	}
	switch {
	case r.Tests != nil && ran(r) == 0 && anyRan:
		return tierNoCounts
	case r.Status == StatusPassed && r.Disqualified != nil:
		return tierDisqualified
	case r.Status == StatusPassed && r.Tampered != nil:
		return tierDisqualified // a forged verdict never wins
	case r.Status == StatusPassed && r.Suspicious != nil && !r.allowSuspicious:
		return tierDisqualified
	case r.Status == StatusPassed:
		return tierPassed
	case r.Tests == nil:
		return tierNoCounts
	}
	return tierCounted
}

// rankLines is the size a tie is broken on: the code part's changed lines
// for a judged candidate (its proposed tests are not what is judged, so a
// fix that brings a test is not the bigger fix), all of them otherwise.
func rankLines(r *result) int {
	if r.judged {
		return r.codeLines
	}
	return r.ChangedLines
}

func failedCount(r *result) int {
	if r.Tests == nil {
		return 0
	}
	return r.Tests.Failed
}

func passedCount(r *result) int {
	if r.Tests == nil {
		return 0
	}
	return r.Tests.Passed
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedUnique(s []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// changedByAll is, without a baseline, what stands in for the baseline's
// run-time changes: the judge paths every hypothesis's command changed (a
// suite that writes a fixture under tests/ does it in every run). With a
// single hypothesis nothing can be told apart, and nothing is excused.
func changedByAll(results []*result) map[string]bool {
	var ran []*result
	for _, r := range results {
		if r.Status == StatusPassed || r.Status == StatusFailed {
			ran = append(ran, r)
		}
	}
	if len(ran) < 2 {
		return nil
	}
	all := set(ran[0].judgeChanged)
	for _, r := range ran[1:] {
		here := set(r.judgeChanged)
		for p := range all {
			if !here[p] {
				delete(all, p)
			}
		}
	}
	return all
}
