package judge

import (
	"strings"
)

// A test file the judge did not know (collect.go could not ask the
// runner: a shell line, a configuration computed at run time), caught by
// the baseline's own output. A candidate that appends a test to such a
// file runs it as its code, and its run names a test the baseline's did
// not: not forged output (tamperVerdict's "a test the judge does not
// have"), but its own test in a file the runner collects, since the
// baseline's run named tests of that file. It is no evidence of forgery;
// its verdict did hold its own change of a test file, which is what
// disqualifies (docs/report.md, "The judge").

// missedTestFiles splits extra (names r reported that the baseline's run
// did not) into those that are not explained and the code files of r's
// that explain the others: files r writes as code that the baseline's
// run named tests of, holding the name.
func missedTestFiles(base, r *result, extra []string) (kept []string, moved int, files []string) {
	judge := set(r.judgeProposed)
	var code []string
	for _, p := range r.Files {
		// A _test.go file is always the judge's (go's rule); naming it
		// would need the module's import paths.
		if !judge[p] && !strings.HasSuffix(p, "_test.go") && baseNamesFile(base, p) {
			code = append(code, p)
		}
	}
	seen := map[string]bool{}
	for _, n := range extra {
		hit := ""
		for _, p := range code {
			if nameInFile(n, p, nil) {
				hit = p
				break
			}
		}
		if hit == "" {
			kept = append(kept, n)
			continue
		}
		moved++
		if !seen[hit] {
			seen[hit] = true
			files = append(files, hit)
		}
	}
	return kept, moved, files
}

// baseNamesFile reports whether the baseline's run named a test of p.
func baseNamesFile(base *result, p string) bool {
	for _, m := range []map[string]bool{base.passedTests, base.failedTests} {
		for n := range m {
			if nameInFile(n, p, nil) {
				return true
			}
		}
	}
	return false
}

// disqualifyMissed adds to a passing r's disqualification that it was
// judged with its own change of test files the runner collects (once: a
// rank may run tamperVerdict again on the same verdicts).
func disqualifyMissed(r *result, files []string) {
	why := "changes " + listShort(files, 3) + ", whose tests the baseline ran (the runner collects it, though the judge did not know it for a test file), and was judged with that change"
	if r.Disqualified != nil && strings.Contains(*r.Disqualified, why) {
		return
	}
	if r.Disqualified != nil {
		why = *r.Disqualified + "; " + why
	}
	r.Disqualified = &why
}
