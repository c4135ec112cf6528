package sandbox

import (
	"fmt"

	"github.com/shadow-dev/shadow/overlay"
)

// limitsLine is `shadow probe`'s line on overlay mode's per-hypothesis
// limits: which mechanism caps processes, whether --memory can be
// enforced, and what was found.
func limitsLine(m overlay.LimitMechanisms) string {
	pids := "processes not capped"
	if m.Pids {
		pids = "processes capped by " + m.Via
	}
	mem := "--memory refused (no memory cgroup)"
	if m.Memory {
		mem = "--memory enforced by a memory cgroup"
	}
	return fmt.Sprintf("limits: %s; %s; oom_score_adj %d (%s)\n", pids, mem, overlay.OOMScoreAdj, m.Why)
}
