package snap

import (
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

func TestApplyRefusalNamesWhy(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, c := range []struct {
		r    *engine.Result
		want string
	}{
		{&engine.Result{Status: engine.StatusPassed}, ""},
		{nil, "has no result"},
		{&engine.Result{Status: engine.StatusFailed, Reason: s("AssertionError: 2 != 3")}, "did not pass (failed: AssertionError: 2 != 3)"},
		{&engine.Result{Status: engine.StatusTimedOut}, "did not pass (timed_out)"},
		{&engine.Result{Status: engine.StatusPassed, Disqualified: s("it changed test_calc.py")}, "disqualified: it changed test_calc.py"},
		{&engine.Result{Status: engine.StatusPassed, Suspicious: s("writes ~/.bashrc")}, "suspicious: writes ~/.bashrc"},
		{&engine.Result{Status: engine.StatusPassed, Suspicious: s("x"), Tampered: s("the canary passed")}, "tampered with its verdict: the canary passed"},
	} {
		got := ApplyRefusal(c.r)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("ApplyRefusal(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}
