package engine

// assemble fills the report's body once the outcomes are judged: what
// went stale, then the judge's part (engine/judge, Assemble: the tests
// from before the candidates, the contrast, the hypotheses in rank order,
// the winner) and their common seal.
func (rs *runState) assemble() {
	rep := rs.rep
	rep.StalePaths = rs.stale.Stop(rs.orig)
	rep.Stale = len(rep.StalePaths) > 0
	rs.jr.Assemble(rep)
	rep.Seal = commonSeal(rep.Hypotheses)
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
