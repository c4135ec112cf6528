// Package remote runs hypotheses on Linux nodes over SSH (docs/remote.md).
//
// The local side (Sandbox) is an engine.Sandbox: before the run it opens
// one OpenSSH master connection per node, brings its own binary when the
// node lacks it, and starts the node side, which takes the node's mirror
// lock; it mirrors the checkout's source files to the same path there
// with rsync under that lock, and each job then goes to a node with a
// free slot. The node side is this same binary in a hidden mode
// (MaybeNode), one ssh session per node per run: it reads jobs as JSON
// lines on stdin, runs each in the node's own best sandbox, streams the
// output and outcomes back as NDJSON on stdout, and ends every job when
// stdin reaches EOF, the heartbeat stops or its parent dies. One session
// for all of a node's jobs: a session start runs the node user's shell,
// which may cost more than the hypothesis. Ranking, records and --apply
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
	// Keep (--keep) is RUN/HYP: the node keeps what the command wrote in
	// its own state dir, under remote/kept/RUN/HYP, and says where.
	Keep string `json:"keep,omitempty"`
}

// nodeMsg is one line the node side writes on its session's stdout:
// first Locked (the mirror lock is held exclusively: sync now; Waiting
// before it when another run holds the lock), then,
// after the sync, the node's sandbox and size (the lock is now shared),
// then for each job (ID) its output and its end, an outcome or the
// sandbox's error. An Error without ID is the session's own failure.
type nodeMsg struct {
	ID      int          `json:"id,omitempty"`
	Out     []byte       `json:"out,omitempty"`
	Outcome *wireOutcome `json:"outcome,omitempty"`
	Error   string       `json:"error,omitempty"`

	Waiting bool   `json:"waiting,omitempty"` // another run holds the mirror lock: wait
	Locked  bool   `json:"locked,omitempty"`
	Mode    string `json:"mode,omitempty"`
	Reason  string `json:"reason,omitempty"`
	CPUs    int    `json:"cpus,omitempty"`
}

// nodeCmd is one line the local side writes after "synced": start a job,
// or cancel one. A blank line is the heartbeat.
type nodeCmd struct {
	ID     int      `json:"id"`
	Job    *wireJob `json:"job,omitempty"`
	Cancel bool     `json:"cancel,omitempty"`
}

type wireOutcome struct {
	ExitCode  int               `json:"exit_code"`
	Signal    string            `json:"signal,omitempty"`
	Collected map[string][]byte `json:"collected,omitempty"`
	Warnings  []string          `json:"warnings,omitempty"`
	Changed   []string          `json:"changed,omitempty"`
	Mode      string            `json:"mode"`
	Kept      string            `json:"kept,omitempty"` // where --keep left it on the node
	// Outside: what the command wrote outside the workspace on the node
	// (its overlay's $HOME and --writable uppers), which the local engine
	// classifies as a local run's (engine/outside.go,
	// engine/checkout/outside.go).
	Outside []engine.OutsideWrite `json:"outside,omitempty"`
}
