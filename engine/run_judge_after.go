package engine

import "context"

// judgeAfter says what the outcomes mean once every job has ended: the
// cross phase's table, the judged notes (judged.go), the rank (rank.go),
// the run's error when every remote node failed, and the --confirm reruns
// (confirm.go).
func (rs *runState) judgeAfter(ctx context.Context) {
	cfg, rep, results := rs.cfg, rs.rep, rs.results
	if rs.cp != nil {
		rs.cp.finish(results)
		rep.Shard = rs.cp.shardInfo(cfg.Shard, results)
	}
	if !cfg.AllowTestEdits {
		judgedNotes(results, rs.splits, rs.orig, rs.cp, cfg.Workspace)
	}

	rank(results, cfg.Hyps)
	// Every node failed before every hypothesis had run: the run stopped,
	// and says why (a node lost after the last one finished is no loss).
	if err := exhausted(cfg.Sandbox); err != nil && ctx.Err() == nil {
		for _, r := range results {
			if r.Status == StatusError {
				rep.Error = err.Error()
				break
			}
		}
	}
	if cfg.Confirm > 0 && ctx.Err() == nil && rep.Error == "" {
		if err := confirm(ctx, cfg, rs.em, rs.jd, results, rs.now); err != nil {
			rep.Error = err.Error()
		}
		if base := baselineOf(results, cfg.Hyps); base != nil {
			rep.BaselineFlaky = base.Flaky
		}
	}
	rep.Cancelled = ctx.Err() != nil
}
