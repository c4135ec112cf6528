package judge

import "context"

// After says what the outcomes mean once every job has ended: the cross
// phase's table, the judged notes (judged.go), the rank (rank.go), the
// run's error when every remote node failed, and the --confirm reruns
// (confirm.go).
func (jr *Run) After(ctx context.Context, rep *Report) {
	cfg, results := jr.cfg, jr.results
	if jr.cp != nil {
		jr.cp.finish(results)
		rep.Shard = jr.cp.shardInfo(cfg.Shard, results)
	}
	if !cfg.AllowTestEdits {
		judgedNotes(results, jr.splits, jr.orig, jr.cp, cfg.Workspace)
	}

	rank(results, cfg.Hyps)
	// Every node failed before every hypothesis had run: the run stopped,
	// and says why (a node lost after the last one finished is no loss).
	if err := cfg.jobs.Exhausted(); err != nil && ctx.Err() == nil {
		for _, r := range results {
			if r.Status == StatusError {
				rep.Error = err.Error()
				break
			}
		}
	}
	if cfg.Confirm > 0 && ctx.Err() == nil && rep.Error == "" {
		if err := confirm(ctx, cfg, jr.jd, results); err != nil {
			rep.Error = err.Error()
		}
		if base := baselineOf(results, cfg.Hyps); base != nil {
			rep.BaselineFlaky = base.Flaky
		}
	}
	rep.Cancelled = ctx.Err() != nil
}

// Assemble fills the report's judged body: the tests from before the
// candidates (testsfrom.go), the contrast (contrast.go), the hypotheses in
// rank order and the winner (none unless --confirm confirmed it, when
// asked for).
func (jr *Run) Assemble(rep *Report) {
	cfg, results := jr.cfg, jr.results
	fillTestsFrom(rep, results, cfg.TestsFrom, cfg.Workspace)
	fillContrast(results, cfg.Hyps)
	rep.Hypotheses = entries(results)
	if w := Leader(results); w != nil && (cfg.Confirm == 0 || w.confirmed) {
		name := w.Name
		rep.Winner = &name
	}
}
