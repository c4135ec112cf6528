package engine

import (
	"context"
	"path/filepath"
)

// setUpJudge sets the judge up before any candidate runs: which files are
// tests (from the runner, on the checkout: collect.go), the tamper canary
// (canary.go), each hypothesis's result with its judged split (judged.go),
// what its sandbox gets (cfg.jobHyps), what the scan flags (scan.go) and
// the cross phase (cross.go).
func (rs *runState) setUpJudge(ctx context.Context) {
	cfg, orig := rs.cfg, rs.orig
	jd := newJudge(cfg.TestPaths, append(commonPaths(cfg.Hyps), cfg.TestsFrom.Paths()...))
	// Which files are tests, from the runner, on the checkout before any
	// candidate runs (collect.go).
	jd.collected = collectTests(ctx, cfg)
	rs.rep.TestCollection = jd.collected.report()
	cfg.canary = canaryFor(cfg.Workspace, cfg.Subdir, cfg.Command, jd.collected) // canary_collected.go
	results := make([]*result, len(cfg.Hyps))
	splits := map[string]judgeSplit{}
	cfg.jobHyps = map[string]Hypothesis{}
	for i, h := range cfg.Hyps {
		results[i] = newResult(h, orig, filepath.Join(cfg.LogDir, h.Name, "output.log"))
		s := splitJudge(jd, h, existedIn(orig))
		splits[h.Name] = s
		results[i].judgeProposed = s.paths
		results[i].JudgeEdits = s.paths
		results[i].allowTestEdits = cfg.AllowTestEdits
		results[i].ProposedTests = listProposed(s, orig)
		cfg.jobHyps[h.Name] = overTestsFrom(h.WithCommon(), cfg.TestsFrom)
		if !cfg.AllowTestEdits {
			results[i].judged = true
			results[i].codeLines = results[i].ChangedLines - judgeLines(s, orig)
			cfg.jobHyps[h.Name] = s.code.WithCommon()
		}
		results[i].allowSuspicious = cfg.AllowSuspicious
		results[i].scanHits = scanHits(jd, h, orig)
		addSuspicious(results[i].Result, scanReason(results[i].scanHits))
		addSuspicious(results[i].Result, gitRiskReason(cfg.Workspace, h, orig))
	}
	rs.jd, rs.results, rs.splits = jd, results, splits
	rs.cp = newRunCrossPhase(cfg, rs.em, jd, splits, orig)
}
