//go:build !linux

package overlay

import "errors"

// Limits are per-hypothesis resource limits (limits_linux.go); overlay
// mode needs Linux, so here nothing is enforced.
type Limits struct {
	MemoryBytes int64
	Pids        int64
	Jobs        int
}

// OOMScoreAdj is what hypotheses run with on Linux.
const OOMScoreAdj = 500

// LimitMechanisms is what the probe found: nothing, here.
type LimitMechanisms struct {
	Via    string `json:"via"`
	Pids   bool   `json:"pids"`
	Memory bool   `json:"memory"`
	Why    string `json:"why"`
}

// ProbeLimits says no mechanism exists off Linux.
func ProbeLimits() LimitMechanisms {
	return LimitMechanisms{Why: "resource limits need Linux (cgroups, user namespaces)"}
}

// HostPorts has nothing to forward: overlay mode needs Linux.
func (s *Sandbox) HostPorts(ports ...int) *Sandbox { return s }

// Limit refuses a memory cap, which nothing here can enforce.
func (s *Sandbox) Limit(l Limits) error {
	if l.MemoryBytes > 0 {
		return errors.New("--memory needs Linux (a memory cgroup)")
	}
	return nil
}
