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
	"github.com/shadow-dev/shadow/snap"
)

// pipeRemote is a remote sandbox whose one node is served over pipes; the
// mirror is the job's own workspace.
type pipeRemote struct{ *Sandbox }

func (p pipeRemote) Run(ctx context.Context, job engine.Job) (engine.Outcome, error) {
	p.mu.Lock()
	p.dir = job.Workspace
	p.mu.Unlock()
	return p.Sandbox.Run(ctx, job)
}

// PipeNode starts the node side's serve on pipes, in this process, with
// nsb as the node's sandbox, and returns the local side connected to it
// (for TestRemoteConformance, in package remote_test: the sandbox the node
// would choose is internal/sandbox's, which imports this package).
func PipeNode(t *testing.T, store snap.Store, nsb engine.Sandbox) engine.Sandbox {
	t.Helper()
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
