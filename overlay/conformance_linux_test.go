package overlay

import (
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/sandboxtest"
)

// The conformance suite against overlay shadows: parallel, at the
// workspace's own path, and hostile-proof. .ci/run runs this package's
// tests as root and as an unprivileged user, so both paths are covered.
func TestOverlayConformance(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T, d sandboxtest.Dirs) engine.Sandbox {
		v := Probe(d.Sandboxes)
		if v.Mode != "overlay" {
			t.Skipf("overlay unavailable here: %s (%s)", v.Reason, v.Fix)
		}
		return New(d.Sandboxes, v.Options).Mask(d.State)
	}, sandboxtest.Promises{Parallel: true, SamePath: true, HostileProof: true})
}

// The same suite with every upper and work dir on a RAM tmpfs
// (--upper ram): the promises do not depend on where upper dirs live.
func TestOverlayConformanceRAM(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T, d sandboxtest.Dirs) engine.Sandbox {
		v := Probe(d.Sandboxes)
		if v.Mode != "overlay" {
			t.Skipf("overlay unavailable here: %s (%s)", v.Reason, v.Fix)
		}
		return New(d.Sandboxes, v.Options).Mask(d.State).RAM(64 << 20)
	}, sandboxtest.Promises{Parallel: true, SamePath: true, HostileProof: true})
}
