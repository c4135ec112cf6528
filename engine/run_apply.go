package engine

import "github.com/shadow-dev/shadow/engine/judge"

// applyWinner writes the winner into the checkout under --apply: its code
// part only, unless --with-tests or --allow-test-edits (docs/report.md);
// never when the run was cancelled or failed.
func (rs *runState) applyWinner() {
	cfg, rep := rs.cfg, rs.rep
	if !cfg.Apply || rep.Winner == nil || rep.Cancelled || rep.Error != "" {
		return
	}
	for _, h := range cfg.Hyps {
		if h.Name == *rep.Winner {
			if !cfg.WithTests && !cfg.AllowTestEdits {
				h = judge.CodeOnly(h, rs.jr.JudgePaths(h.Name))
			}
			applied, err := ApplyHypothesis(cfg.Workspace, h, rs.orig)
			if err != nil {
				rep.ApplyError = err.Error()
			} else {
				rep.Applied = applied
			}
		}
	}
}
