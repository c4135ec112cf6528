// Package remote runs hypotheses on Linux nodes over SSH (DESIGN.md §8).
//
// The local side (Sandbox) is an engine.Sandbox: before the run it opens
// one OpenSSH master connection per node, brings its own binary when the
// node lacks it, mirrors the checkout's source files to the same path
// there with rsync, and holds the node's mirror lock; each job then goes
// to a node with a free slot as one multiplexed ssh session. The node side
// is this same binary in a hidden mode (NodeMain): it reads the job as
// JSON on stdin, runs it in the node's own best sandbox, streams the
// output and the outcome back as NDJSON on stdout, and ends the job when
// stdin reaches EOF or the heartbeat stops. Ranking, records and --apply
// stay local.
package remote

import (
	"time"

	"github.com/shadow-dev/shadow/engine"
)

// NodeArg is argv[1] of the node side; main dispatches on it first.
const NodeArg = "__shadow-node"

// heartbeat is how often the local side writes a newline to a job's
// stdin; the node ends the job after missing heartbeatMiss of them.
const (
	heartbeat     = 5 * time.Second
	heartbeatMiss = 6
)

// wireJob is an engine.Job as sent to the node. Env holds only what the
// run adds to the local environment (the spec's "env"): the command runs
// in the node's own environment plus these.
type wireJob struct {
	Workspace string            `json:"workspace"`
	Subdir    string            `json:"subdir"`
	Hyp       engine.Hypothesis `json:"hyp"`
	Command   []string          `json:"command"`
	Env       []string          `json:"env"`
	Net       string            `json:"net"`
	Tmp       string            `json:"tmp"`
	Collect   []string          `json:"collect,omitempty"`
}

// wireMsg is one line the node side writes: output, or the end of the job
// (an outcome, or the sandbox's error).
type wireMsg struct {
	Out     []byte       `json:"out,omitempty"`
	Outcome *wireOutcome `json:"outcome,omitempty"`
	Error   string       `json:"error,omitempty"`
}

type wireOutcome struct {
	ExitCode  int               `json:"exit_code"`
	Signal    string            `json:"signal,omitempty"`
	Collected map[string][]byte `json:"collected,omitempty"`
	Warnings  []string          `json:"warnings,omitempty"`
	Changed   []string          `json:"changed,omitempty"`
	Mode      string            `json:"mode"`
}

// holdReply is what the node's hold session says: first Locked (the
// mirror lock is held exclusively, sync now), then, after the sync, the
// node's sandbox and size (the lock is now shared).
type holdReply struct {
	Locked bool   `json:"locked,omitempty"`
	Mode   string `json:"mode,omitempty"`
	Reason string `json:"reason,omitempty"`
	CPUs   int    `json:"cpus,omitempty"`
	Error  string `json:"error,omitempty"`
}
