package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/engine/spec"
	"github.com/shadow-dev/shadow/internal/sandbox/freeze"
)

// LocalNode is the node name that means this machine.
const LocalNode = "local"

// Options configure a remote Sandbox.
type Options struct {
	Nodes []engine.RemoteNode
	// Dir is where the mirror lives on every node (--remote-dir); "" is
	// the workspace's own absolute path.
	Dir       string
	Workspace string
	// StateRoot is the local state dir: it holds the control sockets and
	// the sync manifests, and is never mirrored.
	StateRoot string
	Version   string
	// Mode is --mode for the nodes: "" or auto lets each node pick its
	// best sandbox; overlay, copy or inplace is asked of every node, and a
	// node that cannot give it fails (is reported, its work moves).
	Mode    string
	Notices io.Writer
	// Local runs the hypotheses given to the node named "local"; nil when
	// no node has that name.
	Local engine.Sandbox
}

// Sandbox is an engine.Sandbox whose jobs run on remote nodes, each on
// whichever node has a free slot. Prepare before the run, Close after.
type Sandbox struct {
	o       Options
	dir     string
	client  *Client
	nodes   []*node
	extra   map[string]bool // the local environment: what a job's Env adds to it is sent
	mu      sync.Mutex
	changed chan struct{} // closed and replaced when a slot frees or a node dies
	syncs   []engine.NodeSync
	closing bool
	// runID keys what --keep leaves on the nodes (SetRunID); keptOn is,
	// per node, the directory there that holds this run's kept dirs.
	runID  string
	keptOn map[string]string
	// frozen (Freeze): the copy of the source files the mirrors are
	// synced from, and the source list it was taken from.
	frozen      string
	frozenFiles []string
}

// SetRunID names the run, before it starts: --keep's dirs on the nodes
// are kept under it.
func (s *Sandbox) SetRunID(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runID = id
}

type node struct {
	name        string
	jobs        int // slots asked for (spec "jobs"); 0 = the node's CPU count
	slots, busy int
	dead        bool
	err         error // why it is dead
	// ready: prepareNode has returned; until then it reports what ends
	// the session itself (a node's refusal arrives just before its EOF).
	ready    bool
	local    engine.Sandbox
	bin      string // the shadow binary there
	mode     string // its sandbox
	master   *master
	hold     *exec.Cmd // the node side: mirror lock and job server
	holdIn   io.WriteCloser
	holdDone chan struct{}

	wmu     sync.Mutex // serialises writes to holdIn
	pmu     sync.Mutex // guards what follows
	pending map[int]*pendingJob
	nextID  int
	ended   bool // the node side's session is over
}

// pendingJob is a job sent to a node, until its last message.
type pendingJob struct {
	out   io.Writer
	done  chan struct{}
	final *nodeMsg // nil when the session ended first
}

// send writes one line to the node side.
func (n *node) send(line []byte) error {
	n.wmu.Lock()
	defer n.wmu.Unlock()
	_, err := n.holdIn.Write(append(line, '\n'))
	return err
}

// dispatch hands a job's message to its Run; the session's own messages
// go to replies.
func (n *node) dispatch(m nodeMsg, replies chan<- nodeMsg) {
	if m.ID == 0 {
		select {
		case replies <- m:
		default: // nobody waits for it after the set-up
		}
		return
	}
	n.pmu.Lock()
	pj := n.pending[m.ID]
	if pj != nil && (m.Outcome != nil || m.Error != "") {
		delete(n.pending, m.ID)
	}
	n.pmu.Unlock()
	switch {
	case pj == nil:
	case m.Outcome != nil || m.Error != "":
		pj.final = &m
		close(pj.done)
	case len(m.Out) > 0 && pj.out != nil:
		_, _ = pj.out.Write(m.Out)
	}
}

// endSession fails every job still waiting on the node.
func (n *node) endSession() {
	n.pmu.Lock()
	defer n.pmu.Unlock()
	n.ended = true
	for id, pj := range n.pending {
		delete(n.pending, id)
		close(pj.done)
	}
}

// NodeError is a node that failed (unreachable, or its connection or
// shadow died), as opposed to a job that failed on it.
type NodeError struct {
	Node string
	Err  error
	// unsent: the job never reached the node (its session had ended
	// before): it did not run there, so trying another node is not a
	// second run.
	unsent bool
}

func (e *NodeError) Error() string { return "node " + e.Node + ": " + e.Err.Error() }
func (e *NodeError) Unwrap() error { return e.Err }

// New checks the options; nothing is contacted before Prepare.
func New(o Options) (*Sandbox, error) {
	if len(o.Nodes) == 0 {
		return nil, errors.New("no remote nodes")
	}
	if o.Notices == nil {
		o.Notices = io.Discard
	}
	s := &Sandbox{o: o, dir: o.Dir, changed: make(chan struct{}), extra: map[string]bool{}}
	if s.dir == "" {
		s.dir = o.Workspace
	}
	if !filepath.IsAbs(s.dir) {
		return nil, fmt.Errorf("--remote-dir %q: want an absolute path", s.dir)
	}
	s.dir = filepath.Clean(s.dir)
	seen := map[string]bool{}
	for _, rn := range o.Nodes {
		if err := spec.ValidNodeName(rn.Node); err != nil {
			return nil, err
		}
		if seen[rn.Node] {
			return nil, fmt.Errorf("node %q named twice", rn.Node)
		}
		seen[rn.Node] = true
		n := &node{name: rn.Node, jobs: rn.Jobs}
		if rn.Node == LocalNode {
			if o.Local == nil {
				return nil, errors.New(`node "local" named but no local sandbox given`)
			}
			n.local = o.Local
		}
		s.nodes = append(s.nodes, n)
	}
	for _, kv := range os.Environ() {
		s.extra[kv] = true
	}
	return s, nil
}

func (s *Sandbox) Mode() engine.Mode { return engine.ModeRemote }
func (s *Sandbox) Parallel() bool    { return true }

// Syncs implements engine.SyncReporter.
func (s *Sandbox) Syncs() []engine.NodeSync {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]engine.NodeSync(nil), s.syncs...)
}

// HoldRun passes the local sandbox's run hold on (in-place mode on the
// node named "local").
func (s *Sandbox) HoldRun(ctx context.Context) func() {
	if h, ok := s.o.Local.(engine.RunHolder); ok {
		return h.HoldRun(ctx)
	}
	return func() {}
}

// Slots is how many jobs the live nodes take at once.
func (s *Sandbox) Slots() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	total := 0
	for _, n := range s.nodes {
		if !n.dead {
			total += n.slots
		}
	}
	return total
}

// Prepare readies every node at once: connection, binary, mirror sync,
// mirror lock. A node that fails is reported once and left out; the error
// says why when none is left.
func (s *Sandbox) Prepare(ctx context.Context) error {
	needSSH := false
	for _, n := range s.nodes {
		needSSH = needSSH || n.local == nil
	}
	if needSSH {
		c, err := NewClient(filepath.Join(s.o.StateRoot, "ssh"), s.o.Notices)
		if err != nil {
			return err
		}
		s.client = c
	}
	var wg sync.WaitGroup
	errs := make([]error, len(s.nodes))
	for i, n := range s.nodes {
		if n.local != nil {
			n.slots = n.jobs
			if n.slots == 0 {
				n.slots = runtime.NumCPU()
			}
			if !n.local.Parallel() {
				n.slots = 1
			}
			n.mode = string(n.local.Mode())
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.prepareNode(ctx, n); err != nil {
				errs[i] = &NodeError{Node: n.name, Err: err}
				s.markDead(n, errs[i])
			}
		}()
	}
	wg.Wait()
	if s.Slots() > 0 {
		return nil
	}
	var msgs []string
	for _, err := range errs {
		if err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("no remote node can run the hypotheses: %s", strings.Join(msgs, "; "))
}

func (s *Sandbox) prepareNode(ctx context.Context, n *node) error {
	m, err := s.client.StartMaster(ctx, n.name)
	if err != nil {
		return fmt.Errorf("cannot be reached: %w", err)
	}
	n.master = m
	_, sum, err := selfBinary()
	if err != nil {
		return fmt.Errorf("read this shadow binary: %w", err)
	}
	// First session: the node's facts, then (our binary being there
	// already) the hold itself.
	hold, in, out, stderr, err := s.startHold(s.client.Command(n.name, "sh", "-c", factsScript, "sh", sum, "", s.dir, "hold"))
	if err != nil {
		return err
	}
	var lines []string
	for len(lines) < factsLines {
		l, rerr := out.ReadString('\n')
		if rerr != nil {
			break
		}
		lines = append(lines, l)
	}
	f, bin, native, ferr := parseFacts(lines, sum)
	if ferr != nil || !f.present || !native {
		in.Close()
		_, _ = io.Copy(io.Discard, out)
		werr := hold.Wait()
		if ee, ok := werr.(*exec.ExitError); ok && ee.ExitCode() == 7 {
			return fmt.Errorf("cannot create the mirror directory %s there (%s): give --remote-dir a directory the node user may write", s.dir, strings.TrimSpace(stderr.String()))
		}
		if ferr != nil {
			return fmt.Errorf("%v: %v %s", ferr, werr, lastLines(stderr.String(), 3))
		}
		if bin, err = s.client.binary(ctx, n.name, s.dir, s.o.Version, f, native); err != nil {
			return err
		}
		if hold, in, out, stderr, err = s.startHold(s.client.Command(n.name, bin, NodeArg, "hold", s.dir)); err != nil {
			return err
		}
	}
	n.bin = bin
	n.hold, n.holdIn, n.holdDone = hold, in, make(chan struct{})
	replies := make(chan nodeMsg, 2)
	go func() {
		dec := json.NewDecoder(out)
		for {
			var m nodeMsg
			if dec.Decode(&m) != nil {
				break
			}
			n.dispatch(m, replies)
		}
		close(replies)
		n.endSession()
		_ = hold.Wait()
		close(n.holdDone)
		s.mu.Lock()
		closing, ready := s.closing, n.ready
		s.mu.Unlock()
		if !closing && ready {
			s.markDead(n, &NodeError{Node: n.name, Err: fmt.Errorf("lost the connection: %s", strings.TrimSpace(stderr.String()))})
		}
	}()
	next := func(what string) (nodeMsg, error) {
		slow := time.AfterFunc(2*time.Second, func() {
			fmt.Fprintf(s.o.Notices, "shadow: node %s: %s\n", n.name, what)
		})
		defer slow.Stop()
		select {
		case r, ok := <-replies:
			if !ok {
				return r, fmt.Errorf("shadow there ended: %s", strings.TrimSpace(stderr.String()))
			}
			if r.Error != "" {
				return r, errors.New(r.Error)
			}
			return r, nil
		case <-ctx.Done():
			return nodeMsg{}, ctx.Err()
		}
	}
	// The node side says Waiting when another run holds the mirror lock
	// (a slow session start alone is no wait), then Locked.
	for {
		r, err := next("starting shadow there")
		if err != nil {
			return err
		}
		if !r.Waiting {
			break
		}
		fmt.Fprintf(s.o.Notices, "shadow: node %s: waiting for the mirror lock (another run is syncing or using the mirror)\n", n.name)
	}
	now, src := s.frozenFiles, s.frozen
	if src == "" {
		if now, err = sourceFiles(s.o.Workspace, []string{s.o.StateRoot}); err != nil {
			return err
		}
		src = s.o.Workspace
	}
	man := manifestPath(s.o.StateRoot, n.name, s.dir)
	rsh, err := s.client.RsyncShell(n.name)
	if err != nil {
		return err
	}
	sync, err := s.syncMirror(ctx, rsh, n.name, src, syncList(s.o.Workspace, now, man.read()))
	if err != nil {
		return err
	}
	if err := man.write(now); err != nil {
		return fmt.Errorf("record the sync manifest %s: %w", man, err)
	}
	mode := s.o.Mode
	if mode == "" {
		mode = "auto"
	}
	if _, err := io.WriteString(in, "synced "+mode+"\n"); err != nil {
		return fmt.Errorf("shadow there ended: %s", strings.TrimSpace(stderr.String()))
	}
	r, err := next("probing its sandbox")
	if err != nil {
		return err
	}
	n.mode = r.Mode
	n.slots = n.jobs
	if n.slots == 0 {
		n.slots = max(r.CPUs, 1)
	}
	if r.Mode == string(engine.ModeInplace) {
		// In place in the mirror: one hypothesis at a time.
		n.slots = 1
		fmt.Fprintf(s.o.Notices, "shadow: node %s runs hypotheses one at a time in place (%s)\n", n.name, r.Reason)
	}
	s.mu.Lock()
	s.syncs = append(s.syncs, sync)
	n.ready = true
	s.mu.Unlock()
	select {
	case <-n.holdDone: // ended before ready was set: the reader left it to us
		return fmt.Errorf("lost the connection: %s", strings.TrimSpace(stderr.String()))
	default:
	}
	go func() { // the heartbeat: the node ends every job when it stops
		t := time.NewTicker(heartbeat)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if n.send(nil) != nil {
					return
				}
			case <-n.holdDone:
				return
			}
		}
	}()
	return nil
}

// Freeze (--freeze) copies the checkout's source files to dir, at once,
// before any node is synced: every mirror is then synced from that copy,
// so all the nodes run the same sources, those of the run's start,
// whatever changes here while the syncs go on (a node waiting for its
// mirror lock may sync minutes later). The node named "local" runs on it
// too (a lower layer, as a local --freeze run does). It returns the paths
// copied.
func (s *Sandbox) Freeze(dir string) (map[string]bool, error) {
	files, err := sourceFiles(s.o.Workspace, []string{s.o.StateRoot})
	if err != nil {
		return nil, err
	}
	var plain []string
	for _, f := range files {
		if f != ".git" { // a directory, synced from the checkout itself
			plain = append(plain, f)
		}
	}
	frozen, _, err := freeze.Freeze(s.o.Workspace, dir, plain)
	if err != nil {
		return nil, err
	}
	s.frozen, s.frozenFiles = dir, files
	return frozen, nil
}

// HasLocal reports whether the node "local" (this machine) is one of the
// run's nodes.
func (s *Sandbox) HasLocal() bool { return s.o.Local != nil }

// FrozenAll reports whether no change made here after Freeze's copy can
// reach a job: no "local" node runs on this machine's checkout
// (engine.Freezer).
func (s *Sandbox) FrozenAll() bool { return !s.HasLocal() }

// syncMirror sends list from src (the checkout, or Freeze's copy) to the
// node's mirror. A frozen copy holds no .git: that is sent from the
// checkout, by a second rsync over the same master.
func (s *Sandbox) syncMirror(ctx context.Context, rsh, node, src string, list []string) (engine.NodeSync, error) {
	git := false
	if src != s.o.Workspace {
		kept := list[:0:0]
		for _, f := range list {
			if f == ".git" {
				git = true
			} else {
				kept = append(kept, f)
			}
		}
		list = kept
	}
	sync, err := rsyncMirror(ctx, rsh, src, node, s.dir, list)
	if err != nil || !git {
		return sync, err
	}
	g, err := rsyncMirror(ctx, rsh, s.o.Workspace, node, s.dir, []string{".git"})
	sync.MS += g.MS
	sync.Bytes += g.Bytes
	return sync, err
}

// startHold starts a node's hold session (cmd), its stdout read through
// a bufio.Reader.
func (s *Sandbox) startHold(cmd *exec.Cmd) (*exec.Cmd, io.WriteCloser, *bufio.Reader, *tailBuffer, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	stderr := &tailBuffer{max: 4096}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, nil, err
	}
	return cmd, in, bufio.NewReader(out), stderr, nil
}

// markDead takes a node out of the schedule, once, and says so.
func (s *Sandbox) markDead(n *node, err error) {
	s.mu.Lock()
	if n.dead || s.closing {
		s.mu.Unlock()
		return
	}
	n.dead, n.err = true, err
	s.broadcastLocked()
	left := s.liveLocked()
	s.mu.Unlock()
	if left > 0 {
		fmt.Fprintf(s.o.Notices, "shadow: %v; its hypotheses go to the other nodes\n", err)
	} else {
		fmt.Fprintf(s.o.Notices, "shadow: %v; no node is left to run the hypotheses\n", err)
	}
	// Ending the master ends every session over it: in-flight jobs there
	// fail now instead of waiting for the keep-alives.
	n.master.stop()
}

func (s *Sandbox) liveLocked() int {
	live := 0
	for _, n := range s.nodes {
		if !n.dead {
			live++
		}
	}
	return live
}

// Exhausted implements engine.Exhauster: once every node has failed the
// run must stop; the error names each node and why it failed.
func (s *Sandbox) Exhausted() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || len(s.nodes) == 0 || s.liveLocked() > 0 {
		return nil
	}
	var why []string
	for _, n := range s.nodes {
		if n.err != nil {
			why = append(why, n.err.Error())
		} else {
			why = append(why, "node "+n.name+": failed")
		}
	}
	return fmt.Errorf("every remote node failed: %s", strings.Join(why, "; "))
}

func (s *Sandbox) broadcastLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// acquire takes a slot on the live node with the most free ones, waiting
// for one to free; nil when no node is left or ctx ended.
func (s *Sandbox) acquire(ctx context.Context) *node {
	for {
		s.mu.Lock()
		var best *node
		alive := false
		for _, n := range s.nodes {
			if n.dead {
				continue
			}
			alive = true
			if free := n.slots - n.busy; free > 0 && (best == nil || free > best.slots-best.busy) {
				best = n
			}
		}
		if best != nil {
			best.busy++
			s.mu.Unlock()
			return best
		}
		ch := s.changed
		s.mu.Unlock()
		if !alive {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil
		}
	}
}

func (s *Sandbox) release(n *node) {
	s.mu.Lock()
	n.busy--
	s.broadcastLocked()
	s.mu.Unlock()
}

// Run implements engine.Sandbox: the job runs on the next free slot. When
// its node fails under it, it runs once more on another node, and its
// result says so.
func (s *Sandbox) Run(ctx context.Context, job engine.Job) (engine.Outcome, error) {
	moved := ""
	for {
		n := s.acquire(ctx)
		if n == nil {
			if ctx.Err() != nil {
				return engine.Outcome{ExitCode: -1}, nil
			}
			why := s.Exhausted()
			if why == nil {
				why = errors.New("no remote node is left to run it")
			}
			if moved != "" { // it ran, and was cut short by its node
				return engine.Outcome{ExitCode: -1}, fmt.Errorf("node %s failed under it and no node is left to run it again (%v)", moved, why)
			}
			return engine.Outcome{ExitCode: -1}, &engine.NotRunError{Err: why}
		}
		var o engine.Outcome
		var err error
		if n.local != nil {
			lj := job
			if s.frozen != "" { // --freeze: the copy the mirrors were synced from
				lj.Lowers = append([]string{s.frozen}, job.Lowers...)
			}
			o, err = n.local.Run(ctx, lj) // this machine: Node stays ""
			if o.Mode == "" {
				o.Mode = n.mode
			}
		} else {
			o, err = s.runOn(ctx, n, job)
		}
		var ne *NodeError
		if errors.As(err, &ne) && ctx.Err() == nil {
			// Dead before free: a job waiting in acquire must not take
			// this node's slot between the two (it would be sent to a
			// session that has ended).
			s.markDead(n, ne)
			s.release(n)
			if ne.unsent {
				continue // it never ran there: not a second run
			}
			if moved == "" {
				moved = n.name
				fmt.Fprintf(job.Output, "\nshadow: node %s failed (%v); running the hypothesis again on another node\n", n.name, ne.Err)
				continue
			}
			return o, err
		}
		s.release(n)
		if moved != "" && err == nil {
			where := o.Node
			if where == "" {
				where = "this machine"
			}
			o.Warnings = append(o.Warnings, fmt.Sprintf("ran again on %s after node %s failed", where, moved))
		}
		return o, err
	}
}

// runOn sends one job to n's node side and waits for its end. Ending ctx
// cancels it there: the node ends the job's whole tree and reports; a node
// that does not within 15s is left to Close, which ends its session.
func (s *Sandbox) runOn(ctx context.Context, n *node, job engine.Job) (engine.Outcome, error) {
	out := engine.Outcome{ExitCode: -1, Node: n.name}
	wj := &wireJob{Subdir: job.Subdir, Hyp: job.Hyp, Command: job.Command,
		Net: job.Net, Tmp: job.Tmp, Collect: job.Collect}
	s.mu.Lock()
	wj.Workspace = s.dir // under mu: the conformance suite's node sets it per job
	if job.KeepDir != "" && s.runID != "" {
		wj.Keep = s.runID + "/" + job.Hyp.Name
	}
	s.mu.Unlock()
	for _, kv := range job.Env {
		if !s.extra[kv] {
			wj.Env = append(wj.Env, kv)
		}
	}
	pj := &pendingJob{out: job.Output, done: make(chan struct{})}
	n.pmu.Lock()
	if n.ended {
		n.pmu.Unlock()
		return out, &NodeError{Node: n.name, Err: errors.New("its session has ended"), unsent: true}
	}
	if n.pending == nil {
		n.pending = map[int]*pendingJob{}
	}
	n.nextID++
	id := n.nextID
	n.pending[id] = pj
	n.pmu.Unlock()
	forget := func() {
		n.pmu.Lock()
		delete(n.pending, id)
		n.pmu.Unlock()
	}
	line, err := json.Marshal(nodeCmd{ID: id, Job: wj})
	if err != nil {
		forget()
		return out, err
	}
	if err := n.send(line); err != nil {
		forget()
		return out, &NodeError{Node: n.name, Err: fmt.Errorf("send the job: %v", err)}
	}
	select {
	case <-pj.done:
	case <-ctx.Done():
		cancel, _ := json.Marshal(nodeCmd{ID: id, Cancel: true})
		_ = n.send(cancel)
		select {
		case <-pj.done:
		case <-time.After(15 * time.Second):
			forget()
			return out, nil
		}
	}
	switch m := pj.final; {
	case m != nil && m.Outcome != nil:
		r := m.Outcome
		o := engine.Outcome{ExitCode: r.ExitCode, Signal: r.Signal, Collected: r.Collected,
			Warnings: r.Warnings, Changed: r.Changed, Outside: r.Outside, Node: n.name, Mode: r.Mode}
		if r.Kept != "" {
			o.Warnings = append(o.Warnings, fmt.Sprintf("--keep: what the command wrote is kept on node %s, at %s:%s", n.name, n.name, r.Kept))
			s.mu.Lock()
			if s.keptOn == nil {
				s.keptOn = map[string]string{}
			}
			s.keptOn[n.name] = filepath.Dir(r.Kept)
			s.mu.Unlock()
		}
		return o, nil
	case m != nil:
		return out, fmt.Errorf("node %s: %s", n.name, m.Error)
	case ctx.Err() != nil:
		return out, nil
	}
	return out, &NodeError{Node: n.name, Err: errors.New("the connection ended before the hypothesis did")}
}

// Close ends every node's hold (releasing its mirror lock) and master.
func (s *Sandbox) Close() {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, n := range s.nodes {
		if n.hold == nil && n.master == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if n.hold != nil {
				n.holdIn.Close()
				select {
				case <-n.holdDone:
				case <-time.After(5 * time.Second):
					_ = n.hold.Process.Kill()
					<-n.holdDone
				}
			}
			n.master.stop()
		}()
	}
	wg.Wait()
	if s.client != nil {
		s.client.Close()
	}
	for _, n := range s.nodes {
		if dir := s.keptOn[n.name]; dir != "" {
			fmt.Fprintf(s.o.Notices, "shadow: --keep: what the commands wrote stays on node %s, in %s:%s/HYP; it is the node's: `shadow gc` here does not reach it, a later run there removes it after 30 days (ssh %s rm -rf %s, sooner)\n", n.name, n.name, dir, n.name, dir)
		}
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// What the engine and the run service find with engine.As.
var (
	_ engine.Preparer     = (*Sandbox)(nil)
	_ engine.Freezer      = (*Sandbox)(nil)
	_ engine.RunNamer     = (*Sandbox)(nil)
	_ engine.SyncReporter = (*Sandbox)(nil)
	_ engine.Exhauster    = (*Sandbox)(nil)
)
