package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/sandboxtest"
	"github.com/shadow-dev/shadow/snap"
)

// The conformance suite against a remote sandbox, through its node side:
// the local side's protocol (runOn: jobs, output, cancels, heartbeats)
// talks over pipes to the node side's serve, which runs each job in the
// sandbox the node chooses (nodeSandbox, i.e. internal/sandbox.Open with
// --mode asked), as `shadow __shadow-node hold` does at the end of an ssh
// session. What is left out is the transport (ssh, rsync of the mirror),
// which remote_e2e_test.go covers with sshd per simulated node: here the
// node's mirror is the suite's workspace itself.
func TestRemoteConformance(t *testing.T) {
	for _, mode := range []engine.Mode{engine.ModeOverlay, engine.ModeCopy} {
		t.Run(string(mode), func(t *testing.T) {
			caps := engine.CapabilitiesOf(mode)
			sandboxtest.Run(t, func(t *testing.T, d sandboxtest.Dirs) engine.Sandbox {
				return pipeNode(t, snap.Store{Root: d.State}, mode)
			}, sandboxtest.Promises{Parallel: caps.Parallel, SamePath: caps.SamePath, HostileProof: caps.HostileProof})
		})
	}
}

// pipeRemote is a remote sandbox whose one node is served over pipes; the
// mirror is the job's own workspace.
type pipeRemote struct{ *Sandbox }

func (p pipeRemote) Run(ctx context.Context, job engine.Job) (engine.Outcome, error) {
	p.mu.Lock()
	p.dir = job.Workspace
	p.mu.Unlock()
	return p.Sandbox.Run(ctx, job)
}

// pipeNode starts the node side's serve on pipes, in this process, with
// the sandbox the node would choose for mode, and returns the local side
// connected to it.
func pipeNode(t *testing.T, store snap.Store, mode engine.Mode) engine.Sandbox {
	t.Helper()
	ws := t.TempDir() // the probe's and copy base's workspace: any outside the state dir
	nsb, _, err := nodeSandbox(store, ws, string(mode))
	if err != nil {
		t.Skipf("the node cannot give %s mode here: %v", mode, err)
	}
	if nsb.Mode() != mode {
		t.Skipf("the node gives %s mode here, not %s", nsb.Mode(), mode)
	}
	cmdR, cmdW := io.Pipe() // local -> node: jobs, cancels, heartbeats
	outR, outW := io.Pipe() // node -> local: output, outcomes
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	enc := json.NewEncoder(outW)
	send := func(m nodeMsg) {
		mu.Lock()
		defer mu.Unlock()
		if enc.Encode(m) != nil {
			cancel()
		}
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		serve(ctx, cancel, bufio.NewReader(cmdR), nsb, filepath.Join(store.Root, "remote", "kept"), send)
		outW.Close()
	}()
	s := &Sandbox{o: Options{Notices: io.Discard, StateRoot: store.Root}, changed: make(chan struct{})}
	n := &node{name: "pipe", slots: 8, mode: string(nsb.Mode()), holdIn: cmdW, holdDone: make(chan struct{})}
	s.nodes = []*node{n}
	go func() {
		dec := json.NewDecoder(outR)
		for {
			var m nodeMsg
			if dec.Decode(&m) != nil {
				break
			}
			n.dispatch(m, nil)
		}
		n.endSession()
		close(n.holdDone)
	}()
	go func() { // the heartbeat, as prepareNode's
		tk := time.NewTicker(heartbeat)
		defer tk.Stop()
		for {
			select {
			case <-tk.C:
				if n.send(nil) != nil {
					return
				}
			case <-n.holdDone:
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmdW.Close() // stdin ends: serve ends every job and returns
		select {
		case <-served:
		case <-time.After(30 * time.Second):
			t.Error("the node side did not end its jobs within 30s of stdin's end")
		}
		cancel()
		_ = os.RemoveAll(filepath.Join(store.Root, "remote"))
	})
	return pipeRemote{s}
}
