package sandbox

import (
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/overlay"
)

// shadow probe says which mechanism caps a hypothesis here (docs/cli.md:
// probe --json's limits).
func TestLimitsLineSaysTheMechanism(t *testing.T) {
	got := limitsLine(overlay.LimitMechanisms{Via: "rlimit", Pids: true, Why: "no writable cgroup"})
	for _, want := range []string{"capped by rlimit", "--memory refused", "no writable cgroup"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if e := explain(decision{mode: "overlay"}); e.Limits.Why == "" {
		t.Errorf("the explanation carries no limits: %+v", e.Limits)
	}
}
