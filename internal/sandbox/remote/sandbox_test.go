package remote

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

// fakeNodes is a Sandbox whose nodes have the given slots and run jobs
// with run (nodes are "local"-style: no ssh).
func fakeNodes(t *testing.T, slots map[string]int, order []string, run func(node string, job engine.Job) (engine.Outcome, error)) *Sandbox {
	t.Helper()
	s := &Sandbox{o: Options{Notices: io.Discard}, changed: make(chan struct{})}
	for _, name := range order {
		name := name
		s.nodes = append(s.nodes, &node{name: name, slots: slots[name], local: sandboxFunc(func(ctx context.Context, job engine.Job) (engine.Outcome, error) {
			o, err := run(name, job)
			o.Node = name
			return o, err
		})})
	}
	return s
}

type sandboxFunc func(context.Context, engine.Job) (engine.Outcome, error)

func (f sandboxFunc) Mode() engine.Mode { return "fake" }
func (f sandboxFunc) Parallel() bool    { return true }
func (f sandboxFunc) Run(ctx context.Context, j engine.Job) (engine.Outcome, error) {
	return f(ctx, j)
}

// The next job goes to whichever node has a free slot, not the next in
// turn: with one node held by a slow job, every other job goes to the
// other one.
func TestAcquireTakesTheNextFreeSlot(t *testing.T) {
	s := fakeNodes(t, map[string]int{"a": 1, "b": 1}, []string{"a", "b"}, nil)
	ctx := context.Background()
	slow := s.acquire(ctx)
	for i := 0; i < 5; i++ {
		n := s.acquire(ctx)
		if n == slow {
			t.Fatalf("job %d went to %s, which is busy", i, n.name)
		}
		s.release(n)
	}
	// Both busy: the next waits until one frees.
	other := s.acquire(ctx)
	got := make(chan *node, 1)
	go func() { got <- s.acquire(ctx) }()
	select {
	case n := <-got:
		t.Fatalf("got %s with no slot free", n.name)
	case <-time.After(50 * time.Millisecond):
	}
	s.release(slow)
	if n := <-got; n != slow {
		t.Fatalf("got %s, want the freed %s", n.name, slow.name)
	}
	s.release(other)
	// A dead node is never chosen; with none left acquire says so.
	s.markDead(slow, errors.New("gone"))
	if n := s.acquire(ctx); n != other {
		t.Fatalf("got %v after %s died", n, slow.name)
	}
	s.markDead(other, errors.New("gone"))
	if n := s.acquire(ctx); n != nil {
		t.Fatalf("got %s with every node dead", n.name)
	}
}

// Two slots on one node, one on the other: three jobs at once, spread.
func TestAcquirePrefersTheNodeWithMostFreeSlots(t *testing.T) {
	s := fakeNodes(t, map[string]int{"a": 1, "b": 2}, []string{"a", "b"}, nil)
	seen := map[string]int{}
	for i := 0; i < 3; i++ {
		seen[s.acquire(context.Background()).name]++
	}
	if seen["a"] != 1 || seen["b"] != 2 {
		t.Fatalf("spread %v", seen)
	}
	if s.Slots() != 3 {
		t.Fatalf("slots %d", s.Slots())
	}
}

// A node that fails under a job moves that job, once, to another node,
// and the result says so; a job that fails on its node (not the node)
// stays failed.
func TestRunMovesAJobOffAFailedNodeOnce(t *testing.T) {
	var mu sync.Mutex
	ran := map[string][]string{}
	s := fakeNodes(t, map[string]int{"a": 1, "b": 1}, []string{"a", "b"}, func(node string, job engine.Job) (engine.Outcome, error) {
		mu.Lock()
		ran[job.Hyp.Name] = append(ran[job.Hyp.Name], node)
		mu.Unlock()
		if node == "a" {
			return engine.Outcome{ExitCode: -1}, &NodeError{Node: "a", Err: errors.New("connection lost")}
		}
		return engine.Outcome{ExitCode: 0}, nil
	})
	o, err := s.Run(context.Background(), engine.Job{Hyp: engine.Hypothesis{Name: "h"}, Output: io.Discard})
	if err != nil || o.Node != "b" || len(o.Warnings) != 1 || o.Warnings[0] != "ran again on b after node a failed" {
		t.Fatalf("outcome %+v, %v", o, err)
	}
	if got := ran["h"]; len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("ran on %v", got)
	}
	// a is out of the schedule now: nothing more goes there.
	o, err = s.Run(context.Background(), engine.Job{Hyp: engine.Hypothesis{Name: "k"}, Output: io.Discard})
	if err != nil || o.Node != "b" || len(o.Warnings) != 0 || len(ran["k"]) != 1 {
		t.Fatalf("after a died: %+v %v ran %v", o, err, ran["k"])
	}
}

func TestRunMovesOnlyOnce(t *testing.T) {
	s := fakeNodes(t, map[string]int{"a": 1, "b": 1, "c": 1}, []string{"a", "b", "c"}, func(node string, job engine.Job) (engine.Outcome, error) {
		return engine.Outcome{ExitCode: -1}, &NodeError{Node: node, Err: errors.New("down")}
	})
	_, err := s.Run(context.Background(), engine.Job{Hyp: engine.Hypothesis{Name: "h"}, Output: io.Discard})
	var ne *NodeError
	if !errors.As(err, &ne) {
		t.Fatalf("err = %v, want the second node's failure", err)
	}
	if s.Slots() != 1 {
		t.Fatalf("%d slots left, want c's only: the job was tried twice, not three times", s.Slots())
	}
}
