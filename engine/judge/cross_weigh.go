package judge

// How much a failed reproduction weighs (docs/report.md, "Cross-
// examination"). A candidate's proposed test that fails on the checkout
// and passes on its own code is, so far, only its proposer's claim. It
// counts against another candidate that fails it when:
//
//  1. someone else agrees with it: a third candidate, whose judged run
//     passed, passes it too; or
//  2. the checkout agrees: the candidate fails it where the checkout
//     fails it (the same assertion), so it still has the defect the test
//     reproduces; or
//  3. where the failures' locations are not known: the proposer passes
//     every reproduction the candidate proposed (its claim stands against
//     one that cannot answer it).
//
// Otherwise the failure moves from cross.failed to cross.unweighed and
// demotes nobody. An overfit that brings a test asserting its own
// behaviour where it differs from the real fix makes the fix fail it, but
// elsewhere than the checkout does, and nobody else passes it: it weighs
// nothing. A narrow fix fails a general fix's test where the checkout
// fails it (the input it did not fix): it weighs. A fix whose regression
// test exposes an overfit: the overfit fails it where the checkout does.

// weighCross moves the failures that weigh nothing into Unweighed. outcome
// is a target's outcome on a proposer's test; where says where the
// target, and the checkout, failed it ("" unknown).
func weighCross(results []*result, outcome func(target, proposer, test string) crossOutcome, where func(target, proposer, test string) (string, string)) {
	passedJudged := map[string]bool{}
	for _, r := range results {
		if r.Status == StatusPassed {
			passedJudged[r.Name] = true
		}
	}
	own := map[string][]CrossRef{} // proposer -> its reproductions
	for _, r := range results {
		for _, pt := range r.ProposedTests {
			if pt.Reproduces != nil && *pt.Reproduces {
				own[r.Name] = append(own[r.Name], CrossRef{From: r.Name, Test: crossTestName(pt)})
			}
		}
	}
	for _, r := range results {
		if r.Cross == nil {
			continue
		}
		var kept, light []CrossRef
		for _, f := range r.Cross.Failed {
			if weighs(r.Name, f, results, passedJudged, own, outcome, where) {
				kept = append(kept, f)
			} else {
				light = append(light, f)
			}
		}
		if kept == nil {
			kept = []CrossRef{}
		}
		r.Cross.Failed = kept
		r.Cross.Unweighed = light
	}
}

func weighs(target string, f CrossRef, results []*result, passedJudged map[string]bool, own map[string][]CrossRef,
	outcome func(target, proposer, test string) crossOutcome, where func(target, proposer, test string) (string, string)) bool {
	for _, q := range results {
		if q.Name != target && q.Name != f.From && passedJudged[q.Name] && outcome(q.Name, f.From, f.Test) == crossPass {
			return true
		}
	}
	mine, checkout := "", ""
	if where != nil {
		mine, checkout = where(target, f.From, f.Test)
	}
	if mine != "" && checkout != "" {
		return mine == checkout
	}
	for _, t := range own[target] {
		if outcome(f.From, target, t.Test) != crossPass {
			return false
		}
	}
	return true
}
