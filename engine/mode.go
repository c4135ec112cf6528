package engine

// Mode is a sandbox mode, as reported ("mode" in the report and events):
// what Sandbox.Mode returns and what --mode names (with "auto", which is
// not a sandbox's mode but the choice among them: internal/sandbox.Open).
type Mode string

// The modes (docs/modes.md). Only the drivers' Mode methods and the
// capability table below name them.
const (
	ModeOverlay Mode = "overlay" // overlay/: namespaces and an overlayfs shadow per hypothesis
	ModeCopy    Mode = "copy"    // internal/sandbox/copy: a copy of the workspace per hypothesis
	ModeInplace Mode = "inplace" // inplace/: the checkout itself, journaled and restored
	ModeRemote  Mode = "remote"  // internal/sandbox/remote: other machines, each in its own mode
)

// Capabilities is what a driver honours beyond running a job: the one
// table the run's refusals (internal/sandbox.Open), a remote node's
// refusals and the conformance suite's promises (sandboxtest.Promises is
// this struct) read, so that no two of them can disagree.
type Capabilities struct {
	// Parallel: several jobs may run at once, each seeing only its own
	// files (Sandbox.Parallel must agree).
	Parallel bool
	// SamePath: the command runs at the workspace's own absolute path.
	SamePath bool
	// HostileProof: a hostile command cannot reach the checkout, shadow's
	// records or another job (namespace sandboxes). Copy and in-place
	// modes guard against accidents only and leave it false.
	HostileProof bool
	// InCheckout: the job runs in the checkout itself (in-place mode).
	// What the command writes stays, as it would without shadow, and the
	// files the hypothesis put there come back with their original
	// content and mode but a fresh mtime (so make and cargo rebuild).
	InCheckout bool

	// NetIsolated: a job can get a network namespace of its own
	// (--net isolated).
	NetIsolated bool
	// PrivateTmp: a job can get a /tmp of its own (--tmp private; copy
	// mode gives each job its own TMPDIR).
	PrivateTmp bool
	// Lowers: Job.Lowers are stacked above the workspace (--freeze, the
	// warm layer).
	Lowers bool
	// Keep: Job.KeepDir gets what the command wrote (--keep).
	Keep bool
	// UpperRAM: upper dirs can live in a capped tmpfs (--upper ram).
	UpperRAM bool
}

// CapabilitiesOf is what a local driver of mode m honours. A remote
// sandbox honours what each node's own mode does: its node side refuses
// there, with this same table.
func CapabilitiesOf(m Mode) Capabilities {
	switch m {
	case ModeOverlay:
		return Capabilities{Parallel: true, SamePath: true, HostileProof: true,
			NetIsolated: true, PrivateTmp: true, Lowers: true, Keep: true, UpperRAM: true}
	case ModeCopy:
		return Capabilities{Parallel: true, PrivateTmp: true, Lowers: true, Keep: true}
	case ModeInplace:
		return Capabilities{SamePath: true, InCheckout: true}
	}
	return Capabilities{}
}

// Needs is what a run asks of its sandbox beyond running jobs.
type Needs struct {
	NetIsolated, PrivateTmp, Freeze, Keep, UpperRAM bool
}

// Refuses names the first flag of n that a sandbox with capabilities c
// cannot honour ("" when it honours them all): isolation asked for and not
// available is refused, never silently dropped.
func (c Capabilities) Refuses(n Needs) string {
	for _, need := range []struct {
		asked, has bool
		flag       string
	}{
		{n.NetIsolated, c.NetIsolated, "--net isolated"},
		{n.PrivateTmp, c.PrivateTmp, "--tmp private"},
		{n.Freeze, c.Lowers, "--freeze"},
		{n.Keep, c.Keep, "--keep"},
		{n.UpperRAM, c.UpperRAM, "--upper ram"},
	} {
		if need.asked && !need.has {
			return need.flag
		}
	}
	return ""
}
