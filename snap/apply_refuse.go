package snap

import (
	"fmt"

	"github.com/shadow-dev/shadow/engine"
)

// RefusedError: apply was refused because of the hypothesis's own result
// (it did not pass, or its pass does not count); nothing was written.
// Force (--force, MCP force: true) applies it anyway.
type RefusedError struct {
	Run, Hyp string
	Why      string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("not applied: %s/%s %s; nothing was written (--force applies it anyway)", e.Run, e.Hyp, e.Why)
}

// ApplyRefusal says why the recorded result r must not be applied without
// force, or "" when it may: a candidate that did not pass, or whose pass
// does not count (tampered with the verdict, suspicious, disqualified:
// the reasons rank.go keeps it from winning), is not what anyone means
// by "apply the fix" - the TUI asks first; an agent calling apply does
// not see that question. The worst reason is named first.
func ApplyRefusal(r *engine.Result) string {
	switch {
	case r == nil:
		return "has no result (its run was interrupted or is still going)"
	case r.Tampered != nil:
		return "tampered with its verdict: " + *r.Tampered
	case r.Suspicious != nil:
		return "is suspicious: " + *r.Suspicious
	case r.Status != engine.StatusPassed:
		why := "did not pass (" + r.Status
		if r.Reason != nil && *r.Reason != "" {
			why += ": " + *r.Reason
		} else if r.Error != nil && *r.Error != "" {
			why += ": " + *r.Error
		}
		return why + ")"
	case r.Disqualified != nil:
		return "passed but is disqualified: " + *r.Disqualified
	}
	return ""
}

// ApplyChecked is ApplyHyp for a caller that has not asked the user:
// unless force, a hypothesis whose recorded result ApplyRefusal refuses
// is not applied (a *RefusedError), nor one writing what an agent, an
// editor or git would obey, judged again now on the checkout (an
// *engine.RiskyError: a record from an older shadow may not say so). A
// hypothesis that changes nothing is never refused (there is nothing to
// write).
// withTests (optional, --with-tests) writes its proposed tests too.
func (s Store) ApplyChecked(ws, run, hyp string, force bool, withTests ...bool) (*Applied, error) {
	if !force {
		if err := s.CheckRefusal(ws, run, hyp); err != nil {
			return &Applied{Run: run, Hyp: hyp}, err
		}
	}
	return s.applyHyp(ws, run, hyp, len(withTests) > 0 && withTests[0], engine.ApplyOptions{Force: force})
}

// CheckRefusal is ApplyChecked's refusal alone (apply --dry-run).
func (s Store) CheckRefusal(ws, run, hyp string) error {
	h, _, err := s.LoadHyp(ws, run, hyp)
	if err != nil {
		return err
	}
	if h.IsBaseline() {
		return nil
	}
	var res *engine.Result
	for _, r := range ReadRun(s.RunDir(ws, run)).Results {
		if r.Name == hyp {
			res = r
		}
	}
	if why := ApplyRefusal(res); why != "" {
		return &RefusedError{Run: run, Hyp: hyp, Why: why}
	}
	return nil
}
