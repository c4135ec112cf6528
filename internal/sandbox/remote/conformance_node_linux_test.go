package remote_test

import (
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox"
	"github.com/shadow-dev/shadow/internal/sandbox/remote"
	"github.com/shadow-dev/shadow/internal/sandbox/sandboxtest"
	"github.com/shadow-dev/shadow/snap"
)

// The conformance suite against a remote sandbox, through its node side:
// the local side's protocol (runOn: jobs, output, cancels, heartbeats)
// talks over pipes to the node side's serve, which runs each job in the
// sandbox the node chooses (sandbox.OpenNode, i.e. internal/sandbox.Open with
// --mode asked), as `shadow __shadow-node hold` does at the end of an ssh
// session. What is left out is the transport (ssh, rsync of the mirror),
// which remote_e2e_test.go covers with sshd per simulated node: here the
// node's mirror is the suite's workspace itself.
func TestRemoteConformance(t *testing.T) {
	for _, mode := range []engine.Mode{engine.ModeOverlay, engine.ModeCopy} {
		t.Run(string(mode), func(t *testing.T) {
			caps := engine.CapabilitiesOf(mode)
			sandboxtest.Run(t, func(t *testing.T, d sandboxtest.Dirs) engine.Sandbox {
				store := snap.Store{Root: d.State}
				ws := t.TempDir() // the probe's and copy base's workspace: any outside the state dir
				nsb, _, err := sandbox.OpenNode(store, ws, string(mode))
				if err != nil {
					t.Skipf("the node cannot give %s mode here: %v", mode, err)
				}
				if nsb.Mode() != mode {
					t.Skipf("the node gives %s mode here, not %s", nsb.Mode(), mode)
				}
				return remote.PipeNode(t, store, nsb)
			}, sandboxtest.Promises{Parallel: caps.Parallel, SamePath: caps.SamePath, HostileProof: caps.HostileProof})
		})
	}
}
