package snap

import (
	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/engine/judge"
)

// CodeOnly is the part of a recorded hypothesis that apply writes by
// default: without the judge files it proposed (its recorded result's
// judge_edits: tests it added or changed, runner configuration). Its
// verdict came from its code under the checkout's tests (engine's judged
// run), so that is what "apply the fix" means; `shadow apply --with-tests`
// (and shadow_apply's with_tests) writes the tests too. A run recorded
// before judge_edits existed has none: all of it is written, as then.
func (s Store) CodeOnly(ws, run string, h engine.Hypothesis) engine.Hypothesis {
	for _, r := range ReadRun(s.RunDir(ws, run)).Results {
		if r.Name == h.Name && len(r.JudgeEdits) > 0 {
			return judge.CodeOnly(h, r.JudgeEdits)
		}
	}
	return h
}
