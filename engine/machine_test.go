package engine

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// More hypotheses at once than cores: the report says how many cores and
// what load, and a timeout says it may be contention, not a hang.
func TestTimeoutUnderContentionSaysSo(t *testing.T) {
	n := runtime.NumCPU()
	sb := &fakeSandbox{parallel: true, block: map[string]bool{}}
	var hyps []Hypothesis
	for i := 0; i < n+1; i++ {
		name := fmt.Sprintf("h%d", i)
		sb.block[name] = true
		hyps = append(hyps, hyp(name))
	}
	cfg, _ := testConfig(t, sb, hyps...)
	cfg.Jobs = n + 1
	cfg.Timeout = 100 * time.Millisecond
	rep := Run(context.Background(), cfg)
	if rep.CPUs != n {
		t.Errorf("cpus %d, want %d", rep.CPUs, n)
	}
	if rep.Load < 0 {
		t.Errorf("load %v", rep.Load)
	}
	for _, h := range rep.Hypotheses {
		want := fmt.Sprintf("%d at once on %d cores", n+1, n)
		if h.Status != StatusTimedOut || h.Error == nil || !strings.Contains(*h.Error, want) {
			t.Errorf("%s: %s %v, want a timeout naming %q", h.Name, h.Status, h.Error, want)
		}
	}
}
