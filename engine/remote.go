package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// RemoteNode is one entry of a spec's "remote" (docs/remote.md): an ssh
// destination, written either as a string or as {"node": "n1", "jobs": 4}
// when the node should offer a number of slots other than its CPU count.
type RemoteNode struct {
	Node string `json:"node"`
	Jobs int    `json:"jobs,omitempty"`
}

// UnmarshalJSON accepts "n1" and {"node": "n1", "jobs": 4}, and refuses
// unknown fields like the rest of the spec.
func (n *RemoteNode) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		*n = RemoteNode{}
		return json.Unmarshal(b, &n.Node)
	}
	type plain RemoteNode
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("remote: want a node name or {\"node\": NAME, \"jobs\": N}: %v", err)
	}
	if p.Jobs < 0 {
		return fmt.Errorf("remote: node %q: jobs %d: want a positive number", p.Node, p.Jobs)
	}
	*n = RemoteNode(p)
	return nil
}

// SyncReporter is implemented by a sandbox that mirrored the checkout to
// other machines before the run (remote nodes): the report carries what
// each sync cost.
type SyncReporter interface {
	Syncs() []NodeSync
}

// Exhauster is implemented by a sandbox that can lose, mid-run, everything
// it runs jobs on (remote nodes that have all failed). Once Exhausted
// returns an error, Run starts no more hypotheses: those left are reported
// as not run (status error, runs 0, the reason in error), the report's
// error says why, and --apply writes nothing (docs/remote.md: the run fails
// with exit 3 when no node works).
type Exhauster interface {
	Exhausted() error
}

// NotRunError is a Sandbox.Run error that means the job never started
// anywhere (no node was left to take it): its result has runs 0.
type NotRunError struct{ Err error }

func (e *NotRunError) Error() string { return "not run: " + e.Err.Error() }
func (e *NotRunError) Unwrap() error { return e.Err }

// exhausted is the sandbox's Exhausted, nil for a sandbox that cannot be.
func exhausted(sb Sandbox) error {
	if x, ok := As[Exhauster](sb); ok {
		return x.Exhausted()
	}
	return nil
}

// markNotRun makes r a hypothesis the run never started because the
// sandbox had nothing left to run it on.
func markNotRun(r *Result, why error) {
	r.Status = StatusError
	msg := (&NotRunError{Err: why}).Error()
	r.Error = &msg
	r.Runs, r.Passes = 0, 0
}
