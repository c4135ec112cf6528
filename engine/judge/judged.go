package judge

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/shadow-dev/shadow/engine/report"
)

// The judged run (docs/judge.md, "The judged run"): a candidate is judged by
// running its code under the checkout's judge. Its changes are split in two,
// the code part and the judge part (test files, runner configuration, the
// spec's common files, any new file a runner would collect as a test); the
// verdict comes from a shadow holding only the code part (plus common). The
// judge part is what it proposes (its proposed tests run in the cross phase,
// cross.go), never what it is judged by: a test edit no longer disqualifies by
// itself, and a candidate that passes only with its own test changes fails.
//
// This is SWE-bench's harness rule (the model's patch is applied, then the
// benchmark's own test files are written over it before the tests run) and
// Agentless's (a candidate's test changes are dropped from the patch that
// is judged; its reproduction tests are run apart).
//
// With allow_test_edits the candidate is judged as written (the old rule):
// the user said test changes belong to the fix.

// judgeSplit is one candidate's changes split into its code and judge parts.
type judgeSplit struct {
	// code is what the judged run lays over the checkout: the code files
	// and deletes, the common part, and the common part's version of any
	// common path the candidate rewrote.
	code Hypothesis
	// files and deletes are its judge part: what it proposes of the judge.
	files   []File
	deletes []string
	// paths are the judge paths it writes or deletes, sorted (judge_edits).
	paths []string
}

// collectsAsTest reports whether a new file at p would be collected as a
// test by a runner's defaults though no test_paths glob names it:
// unittest's discovery pattern test*.py, Django's tests.py, Ruby's and
// Java's conventions. (*_test.go, *.test.*, *.spec.*, test_*.py and the
// test directories are DefaultTestPaths already.)
func collectsAsTest(p string) bool {
	base := path.Base(p)
	switch {
	case strings.HasPrefix(base, "test") && strings.HasSuffix(base, ".py"):
	case base == "tests.py" || strings.HasSuffix(base, "_test.py") || strings.HasSuffix(base, "_tests.py"):
	case strings.HasSuffix(base, "_spec.rb") || strings.HasSuffix(base, "_test.rb"):
	case strings.HasSuffix(base, "Test.java") || strings.HasSuffix(base, "Tests.java") || strings.HasSuffix(base, "Test.kt"):
	case strings.HasSuffix(base, "_test.go") || strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") || strings.HasSuffix(base, "_test.ts") || strings.HasSuffix(base, "_test.js"):
	default:
		return false
	}
	return true
}

// isJudgePath reports whether a path a candidate writes belongs to the
// judge: the judge's files, and a new file a runner would collect.
func (j *judge) isJudgePath(p string, existed bool) bool {
	return j.is(p) || (!existed && (collectsAsTest(p) || j.collected.collectsNew(p)))
}

// splitJudge splits h. existed reports whether a path is in the checkout.
func splitJudge(jd *judge, h Hypothesis, existed func(string) bool) judgeSplit {
	s := judgeSplit{code: Hypothesis{Name: h.Name, Common: h.Common, CommonDeletes: h.CommonDeletes}, paths: []string{}}
	for _, f := range h.Files {
		if jd.isJudgePath(f.Path, existed(f.Path)) {
			s.files = append(s.files, f)
			s.paths = append(s.paths, f.Path)
		} else {
			s.code.Files = append(s.code.Files, f)
		}
	}
	for _, p := range h.Deletes {
		if jd.isJudgePath(p, true) {
			s.deletes = append(s.deletes, p)
			s.paths = append(s.paths, p)
		} else {
			s.code.Deletes = append(s.code.Deletes, p)
		}
	}
	// The judge's own version of a common path the candidate rewrote.
	if len(h.ReplacedCommon) > 0 || len(h.ReplacedCommonDeletes) > 0 {
		s.code.Common = append(append([]File{}, h.Common...), h.ReplacedCommon...)
		s.code.CommonDeletes = append(append([]string{}, h.CommonDeletes...), h.ReplacedCommonDeletes...)
		sort.Slice(s.code.Common, func(i, j int) bool { return s.code.Common[i].Path < s.code.Common[j].Path })
		sort.Strings(s.code.CommonDeletes)
	}
	sort.Strings(s.paths)
	return s
}

// judgeLines counts the changed lines of the judge part (the rest of
// ChangedLines is the code part's).
func judgeLines(s judgeSplit, orig map[string]FileState) int {
	n := 0
	for _, f := range s.files {
		o := orig[f.Path]
		_, k := UnifiedDiff(f.Path, o.Content, o.Exists, f.Content, true)
		n += k
	}
	for _, p := range s.deletes {
		if o := orig[p]; o.Exists && !o.Dir {
			_, k := UnifiedDiff(p, o.Content, true, nil, false)
			n += k
		}
	}
	return n
}

// existedIn is a checkout-existence test over the originals ReadOriginals
// read (every path a hypothesis touches is there).
func existedIn(orig map[string]FileState) func(string) bool {
	return func(p string) bool { return orig[p].Exists }
}

// neededNote says, for a candidate that failed its judged run, which of its
// own test changes it needed: the checkout's failing tests that it changed
// (its proposed tests, by the names the runner printed) or whose file it
// deleted, or, where it changed the runners' configuration, that. A
// failing test it did not touch is its code's failure, not a need. ownPassed names the tests
// that passed when its own judge part was laid over its code (the cross
// phase's run on it), to say it passes only with its own test changes.
// "" when nothing ties the failure to its test changes.
func neededNote(r *result, split judgeSplit, proposed []proposedTest, ownPassed map[string]bool, mods *goModules) string {
	if len(split.paths) == 0 || r.Status != StatusFailed {
		return ""
	}
	var tests, files []string
	seen := map[string]bool{}
	deleted := set(split.deletes)
	changed := func(name, p string) bool {
		if deleted[p] {
			return nameInFile(name, p, mods)
		}
		for _, t := range proposed {
			if t.path == p && t.matches(name, mods) {
				return true
			}
		}
		return false
	}
	for _, name := range sortedKeys(r.failedTests) {
		for _, p := range split.paths {
			if changed(name, p) {
				tests = append(tests, name)
				if !seen[p] {
					seen[p] = true
					files = append(files, p)
				}
				break
			}
		}
	}
	var configs []string
	for _, p := range split.paths {
		if runnerConfigs[path.Base(p)] || hasConfigPrefix(path.Base(p)) {
			configs = append(configs, p)
		}
	}
	if len(tests) == 0 && len(configs) == 0 {
		return ""
	}
	var parts []string
	if len(tests) > 0 {
		s := fmt.Sprintf("fails %s under the checkout's tests; it changes %s", listShort(tests, 3), listShort(files, 3))
		passes := 0
		for _, t := range tests {
			if ownPassed[t] {
				passes++
			}
		}
		if passes > 0 {
			s += fmt.Sprintf(", and passes %d of them only with those changes", passes)
		}
		parts = append(parts, s)
	}
	if len(configs) > 0 {
		parts = append(parts, "its changes to "+listShort(configs, 3)+" are not part of its verdict")
	}
	return judgedNotePrefix + strings.Join(parts, "; ")
}

// judgedNotePrefix starts the note neededNote adds to a reason.
const judgedNotePrefix = report.JudgedNotePrefix

func hasConfigPrefix(base string) bool {
	for _, pre := range runnerConfigPrefixes {
		if strings.HasPrefix(base, pre) {
			return true
		}
	}
	return false
}

// nameInFile reports whether a runner's test name belongs to the file p
// (workspace-relative): pytest's "FILE::test", vitest's "FILE > title",
// jest's "FILE › title", a collection error's bare FILE, unittest's
// "pkg.module.Class.test", Go's "importpath.TestX" for a _test.go file in
// that package's directory.
func nameInFile(name, p string, mods *goModules) bool {
	file := name
	for _, sep := range []string{"::", " > ", " › "} {
		if i := strings.Index(name, sep); i >= 0 {
			file = name[:i]
			break
		}
	}
	if samePath(file, p) {
		return true
	}
	switch {
	case strings.HasSuffix(p, ".py"):
		mod := strings.ReplaceAll(strings.TrimSuffix(p, ".py"), "/", ".")
		for m := mod; m != ""; {
			if strings.HasPrefix(name, m+".") {
				return true
			}
			_, rest, ok := strings.Cut(m, ".")
			if !ok {
				break
			}
			m = rest
		}
	case strings.HasSuffix(p, "_test.go"):
		pkg := mods.importPath(path.Dir(p))
		return name == pkg || strings.HasPrefix(name, pkg+".")
	}
	return false
}

// samePath reports whether two relative paths name the same file when one
// may be relative to a subdirectory (the runner's root) of the other's.
func samePath(a, b string) bool {
	a, b = strings.TrimPrefix(a, "./"), strings.TrimPrefix(b, "./")
	return a == b || strings.HasSuffix(a, "/"+b) || strings.HasSuffix(b, "/"+a)
}

// judgedNotes adds to the reason of each candidate that failed its judged
// run which of its own test changes it needed (neededNote).
func judgedNotes(results []*result, splits map[string]judgeSplit, orig map[string]FileState, cp *crossPhase, workspace string) {
	mods := newGoModules(workspace)
	for _, r := range results {
		s := splits[r.Name]
		note := neededNote(r, s, proposedTests(s.files, orig), cp.ownPassed(r.Name), mods)
		if note == "" {
			continue
		}
		if r.Reason != nil {
			note = *r.Reason + "; " + note
		}
		r.Reason = &note
	}
}
