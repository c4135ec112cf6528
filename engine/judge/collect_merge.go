package judge

import (
	"context"
	"path/filepath"
)

// JudgePathsIn is JudgePaths with the runner's own test files added, as a
// run of command in ws/subdir takes them (collect.go), read without
// running anything: `shadow merge --apply` splits the winner on this
// machine, from the spec and the checkout, not from what a shard's report
// says its collection found. Where the run would have asked pytest's
// collection, its configuration's globs stand in for it (a shard's
// test_collection says what the collection found).
func JudgePathsIn(ws, subdir string, command []string, hyps []Hypothesis, testPaths []string, orig map[string]FileState) map[string][]string {
	jd := newJudge(testPaths, commonPaths(hyps))
	jd.collected = collectTests(context.Background(), &Config{Workspace: filepath.Clean(ws), Subdir: subdir, Command: command})
	out := make(map[string][]string, len(hyps))
	for _, h := range hyps {
		out[h.Name] = splitJudge(jd, h, existedIn(orig)).paths
	}
	return out
}
