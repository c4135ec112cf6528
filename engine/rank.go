package engine

import "sort"

// Rank orders results as DESIGN.md §4 says: passed before not passed, then
// fewer failing tests, more passing tests, fewer changed lines, spec order.
// It also fills in each result's rank and its fixed/broken tests against
// the first baseline hypothesis. hyps is in spec order, as results is on
// entry.
func Rank(results []*Result, hyps []Hypothesis) {
	order := make(map[string]int, len(results))
	for i, r := range results {
		order[r.Name] = i
	}
	var base *Result
	for i, h := range hyps {
		if h.IsBaseline() && i < len(results) {
			base = results[i]
			break
		}
	}
	for _, r := range results {
		r.Fixed, r.Broken = []string{}, []string{}
		if base == nil || r == base || base.Tests == nil || r.Tests == nil {
			continue
		}
		for _, n := range sortedKeys(base.failedTests) {
			if r.passedTests[n] {
				r.Fixed = append(r.Fixed, n)
			}
		}
		for _, n := range sortedKeys(base.passedTests) {
			if r.failedTests[n] {
				r.Broken = append(r.Broken, n)
			}
		}
	}
	sort.SliceStable(results, func(i, j int) bool {
		a, b := results[i], results[j]
		if pa, pb := a.Status == StatusPassed, b.Status == StatusPassed; pa != pb {
			return pa
		}
		if fa, fb := failedCount(a), failedCount(b); fa != fb {
			return fa < fb
		}
		if pa, pb := passedCount(a), passedCount(b); pa != pb {
			return pa > pb
		}
		if a.ChangedLines != b.ChangedLines {
			return a.ChangedLines < b.ChangedLines
		}
		return order[a.Name] < order[b.Name]
	})
	for i, r := range results {
		r.Rank = i + 1
	}
}

func failedCount(r *Result) int {
	if r.Tests == nil {
		return 0
	}
	return r.Tests.Failed
}

func passedCount(r *Result) int {
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
