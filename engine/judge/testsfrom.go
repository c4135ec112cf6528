package judge

import (
	"context"
	"fmt"
	"sort"

	"github.com/shadow-dev/shadow/engine/spec"
)

// Tests written before the candidates were seen (--tests-from, the spec's
// "tests_from"; docs/spec.md, docs/report.md "Tests from before the
// candidates"): a user's or another agent's reproduction of the issue,
// written from the issue alone. They are the judge's like the checkout's
// own tests: laid over the baseline and every candidate after its own
// changes (SWE-bench's harness writes the benchmark's test files over the
// model's patch the same way), never part of a hypothesis's files, diff,
// record or apply, and a candidate's own version of one is its proposal,
// not what it is judged by.

// TestsFrom is the resolved tests (engine/spec).
type TestsFrom = spec.TestsFrom

// ResolveTestsFrom reads a --tests-from directory or patch against the
// workspace (spec.ResolveTestsFrom).
// A directory's runner caches (__pycache__, .pytest_cache, *.pyc: what
// running the tests where they were written leaves) are not laid over.
func ResolveTestsFrom(ctx context.Context, field, source, dir, workspace string, lim Limits) (*TestsFrom, error) {
	tf, err := spec.ResolveTestsFrom(ctx, field, source, dir, workspace, lim)
	if err != nil || tf.Kind != "dir" {
		return tf, err
	}
	kept := tf.Files[:0]
	for _, f := range tf.Files {
		if !isNoise(f.Path) {
			kept = append(kept, f)
		}
	}
	if len(kept) == 0 {
		return nil, &SpecError{Field: field, Msg: tf.Source + ": the directory holds only runner caches (__pycache__, .pytest_cache...): no test file"}
	}
	tf.Files = kept
	return tf, nil
}

// TestsFromCode names the files of tf that replace a file of the checkout
// the judge would otherwise read as code (no test_paths glob, no runner
// configuration): for this run they are the judge's, so a candidate's
// change to one is its proposal, not part of the code it is judged by.
// The caller says so; it is not refused, since a project's test file may
// be one no glob names.
func TestsFromCode(tf *TestsFrom, testPaths []string, ws string) []string {
	if tf == nil {
		return nil
	}
	jd := newJudge(testPaths, nil)
	var out []string
	for _, f := range tf.Files {
		if st := readState(ws, f.Path); st.Exists && !jd.is(f.Path) {
			out = append(out, f.Path)
		}
	}
	return out
}

// WithTestsFrom lays tf over every hypothesis as part of its common part
// (the judge's files it runs with and does not propose): where the
// hypothesis writes or deletes the path itself, its version stays its own
// and the tests' goes to ReplacedCommon, which its judged run puts back
// (judged.go). A path the spec's common part also sets is refused: two
// judges of one file.
func WithTestsFrom(hyps []Hypothesis, tf *TestsFrom) ([]Hypothesis, error) {
	if tf == nil || len(tf.Files) == 0 {
		return hyps, nil
	}
	out := make([]Hypothesis, len(hyps))
	for i, h := range hyps {
		common := set(commonPaths([]Hypothesis{h}))
		for _, f := range h.ReplacedCommon {
			common[f.Path] = true
		}
		for _, p := range h.ReplacedCommonDeletes {
			common[p] = true
		}
		own := set(proposedPaths(h))
		h.Common = append([]File{}, h.Common...)
		h.ReplacedCommon = append([]File{}, h.ReplacedCommon...)
		for _, f := range tf.Files {
			switch {
			case common[f.Path]:
				return nil, fmt.Errorf("%s is also in the spec's common part: give each file one source", f.Path)
			case own[f.Path]:
				h.ReplacedCommon = append(h.ReplacedCommon, f)
			default:
				h.Common = append(h.Common, f)
			}
		}
		sort.Slice(h.Common, func(a, b int) bool { return h.Common[a].Path < h.Common[b].Path })
		sort.Slice(h.ReplacedCommon, func(a, b int) bool { return h.ReplacedCommon[a].Path < h.ReplacedCommon[b].Path })
		out[i] = h
	}
	return out, nil
}

// testsFromReport is the report's tests_from: where the tests came from,
// the files, and the tests they add or change (read from the files, as a
// candidate's proposed tests are: cross_tests.go).
func testsFromReport(tf *TestsFrom, ws string) (*TestsFromInfo, []proposedTest) {
	if tf == nil {
		return nil, nil
	}
	orig := map[string]FileState{}
	for _, f := range tf.Files {
		orig[f.Path] = readState(ws, f.Path)
	}
	tests := proposedTests(tf.Files, orig)
	info := &TestsFromInfo{Source: tf.Source, Kind: tf.Kind, Files: tf.Paths(), Tests: []string{}}
	for _, t := range tests {
		info.Tests = append(info.Tests, t.String())
	}
	return info, tests
}

// testsFromOutcome is how one hypothesis fared on the tests from before
// the candidates: each test by the name the report gives it, passed or
// failed by the runner's names (a whole file or package that failed, as a
// build or collection failure, fails each of its tests; one that passed
// passed them). nil where its
// run named none of them (it did not run, or its runner names no tests).
func testsFromOutcome(r *result, tests []proposedTest, mods *goModules) *TestsFromOutcome {
	if len(tests) == 0 || r.Runs == 0 {
		return nil
	}
	o := &TestsFromOutcome{Passed: []string{}, Failed: []string{}}
	for _, t := range tests {
		failed, passed := false, false
		for n := range r.failedTests {
			if t.matches(n, mods) || t.unitFailed(n, mods) {
				failed = true
				break
			}
		}
		if !failed {
			for n := range r.passedTests {
				// A passing package (plain go test names packages only)
				// or file passed each of its tests.
				if t.matches(n, mods) || t.unitFailed(n, mods) {
					passed = true
					break
				}
			}
		}
		switch {
		case failed:
			o.Failed = append(o.Failed, t.String())
		case passed, r.Status == StatusPassed:
			// A passed run failed no test it ran (docs/report.md,
			// "Passed"), and one that ran fewer than the baseline is
			// lost_tests' to say.
			o.Passed = append(o.Passed, t.String())
		}
	}
	if len(o.Passed)+len(o.Failed) == 0 {
		return nil
	}
	return o
}

// fillTestsFrom sets the report's tests_from and each result's.
func fillTestsFrom(rep *Report, results []*result, tf *TestsFrom, ws string) {
	info, tests := testsFromReport(tf, ws)
	rep.TestsFrom = info
	if info == nil {
		return
	}
	mods := newGoModules(ws)
	for _, r := range results {
		r.TestsFrom = testsFromOutcome(r, tests, mods)
	}
}

// overTestsFrom is what h's job runs when it is judged as written
// (allow_test_edits): its own changes, with the tests from before the
// candidates over them. allow_test_edits lets a candidate change the
// checkout's tests; these were written for this run to decide it, so no
// candidate's version of one is what it is judged by.
func overTestsFrom(h Hypothesis, tf *TestsFrom) Hypothesis {
	if tf == nil {
		return h
	}
	byPath := map[string]File{}
	for _, f := range tf.Files {
		byPath[f.Path] = f
	}
	out := h
	out.Files = make([]File, len(h.Files))
	for i, f := range h.Files {
		if t, ok := byPath[f.Path]; ok {
			f = t
		}
		out.Files[i] = f
		delete(byPath, f.Path)
	}
	out.Deletes = nil
	for _, p := range h.Deletes {
		if t, ok := byPath[p]; ok {
			out.Files = append(out.Files, t) // a deleted test file is back
			continue
		}
		out.Deletes = append(out.Deletes, p)
	}
	sort.Slice(out.Files, func(a, b int) bool { return out.Files[a].Path < out.Files[b].Path })
	return out
}
