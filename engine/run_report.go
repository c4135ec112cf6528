package engine

// assemble fills the report's body once the outcomes are judged: what
// went stale, the tests from before the candidates (testsfrom.go), the
// contrast (contrast.go), the hypotheses in rank order, their common seal
// and the winner (none unless --confirm confirmed it, when asked for).
func (rs *runState) assemble() {
	cfg, rep, results := rs.cfg, rs.rep, rs.results
	rep.StalePaths = rs.stale.Stop(rs.orig)
	rep.Stale = len(rep.StalePaths) > 0
	fillTestsFrom(rep, results, cfg.TestsFrom, cfg.Workspace)
	fillContrast(results, cfg.Hyps)
	rep.Hypotheses = entries(results)
	rep.Seal = commonSeal(rep.Hypotheses)
	if w := Leader(results); w != nil && (cfg.Confirm == 0 || w.confirmed) {
		name := w.Name
		rep.Winner = &name
	}
}

// finish stamps the copy cost and the duration, lets cfg.FixReport
// complete the report and emits run_finished.
func (rs *runState) finish() *Report {
	rep := rs.rep
	rs.copyCost(rep)
	rep.DurationMS = rs.now().Sub(rs.started).Milliseconds()
	for _, fix := range rs.cfg.FixReport {
		fix(rep)
	}
	rs.em.emit(Event{Kind: KindRunFinished, Report: rep})
	return rep
}
