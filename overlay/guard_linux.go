package overlay

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"runtime"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/overlay/nsinit"
)

// jobGuard is what a job gets beside its mounts: its network namespace's
// listeners (net_linux.go) and its resource limits (limits_linux.go).
type jobGuard struct {
	net *netLink
	lim *hypLimits
}

// newNet reports whether a job with this --net gets its own network
// namespace.
func newNet(mode string) bool { return nsinit.NewNet(netMode(mode)) }

// guard prepares the job's network and limits and fills in their part of
// cfg; netFD is the descriptor number the init will see the network link
// at (files, when there is one).
func (s *Sandbox) guard(job engine.Job, cfg *initConfig, netFD int) (*jobGuard, error) {
	g := &jobGuard{}
	cfg.Net = netMode(job.Net)
	var proxy *outboundProxy
	if cfg.Net == nsinit.NetPrivate {
		proxy = s.proxy()
	}
	hostPorts := s.hostPorts
	if cfg.Net != nsinit.NetPrivate {
		hostPorts = nil // host: the ports are there already; isolated: nothing crosses
	}
	jobs := s.limits.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	var err error
	if g.net, err = newNetLink(cfg.Net, hostPorts, proxy, s.fdBudget(jobs)); err != nil {
		return nil, err
	}
	if g.net != nil {
		cfg.NetFD, cfg.HostPorts, cfg.Proxy = netFD, hostPorts, proxy != nil
	}
	var id [6]byte
	_, _ = rand.Read(id[:])
	if g.lim, err = s.limitsFor(cgroupPrefix+hex.EncodeToString(id[:]), jobs); err != nil {
		g.net.Close()
		return nil, err
	}
	cfg.LimitConfig = nsinit.LimitConfig{OOMScoreAdj: g.lim.oomAdj, NProc: g.lim.nproc, TmpBytes: tmpCap(jobs, s.limits.MemoryBytes)}
	return g, nil
}

// files are handed to the init after the RAM socket (NetConfig.NetFD).
func (g *jobGuard) files() []*os.File { return g.net.childEnd() }

// attach runs with the init's pid before it is configured.
func (g *jobGuard) attach(pid int) error { return g.lim.attach(pid) }

// result is the report's peak memory and limits.
func (g *jobGuard) result(st *initStatus) (*int64, *engine.HypLimits) {
	return g.lim.result(st.MaxRSSKiB * 1024)
}

func (g *jobGuard) release() {
	g.net.Close()
	g.lim.release()
}

// fdBudget is the descriptors all jobs' forwarding may hold, sized on
// first use for jobs at once (fdbudget_linux.go).
func (s *Sandbox) fdBudget(jobs int) *fdBudget {
	s.fdOnce.Do(func() { s.fds = newFDBudget(jobs) })
	return s.fds
}

// proxy is the sandbox's outbound proxy, made on first use and shared by
// every job (it holds no per-job state).
func (s *Sandbox) proxy() *outboundProxy {
	s.proxyOnce.Do(func() {
		if !s.noProxy {
			s.outbound = newOutboundProxy()
		}
	})
	return s.outbound
}
