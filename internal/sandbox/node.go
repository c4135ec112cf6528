package sandbox

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/entry"
	"github.com/shadow-dev/shadow/internal/sandbox/remote"
	"github.com/shadow-dev/shadow/snap"
)

// nodePoint is the node side of --remote (`shadow __shadow-node`),
// registered here rather than by internal/sandbox/remote: the sandbox a
// node runs its jobs in is this package's decision (OpenNode), and this
// package builds the remote sandbox, so remote is handed the decision
// instead of importing it (docs/architecture.md, "Imports point one way").
var nodePoint = remote.NodePoint(OpenNode)

func init() { entry.Register(nodePoint) }

// MaybeNode runs the node side when this process was started as one
// (argv[1] is remote.NodeArg) and exits; for TestMain of the tests that
// simulate nodes (main dispatches it through the table).
func MaybeNode() { entry.Maybe(nodePoint) }

// OpenNode is the sandbox --mode asks for on this node, chosen by Open as
// a local run's is (auto: its best, as its own probe says: overlay
// shadows, else a copy of the mirror per hypothesis, else in place in the
// mirror, journaled and restored, one at a time). A mode the node cannot
// give is refused, as locally; what a job asks that the mode cannot honour
// is refused per job (the node side's isolationRefused).
func OpenNode(store snap.Store, ws, mode string) (engine.Sandbox, string, error) {
	// The cache is keyed by the binary: its path holds its sha256.
	exe, _ := os.Executable()
	// Like local runs, the command sees none of shadow's own state here,
	// nor the binaries it brought (one it replaced would run as the next
	// run's node side).
	var hide []string
	if bin := filepath.Dir(filepath.Dir(exe)); filepath.Base(bin) == "bin" && filepath.Base(filepath.Dir(bin)) == "shadow" {
		hide = append(hide, bin)
	}
	sb, err := Open(Config{Store: store, Workspace: ws, Mode: mode, Version: "node:" + exe, Hide: hide})
	if err != nil {
		var r *Refusal
		if errors.As(err, &r) {
			msg := r.Msg + " there"
			if r.Reason != "" {
				msg += ": " + r.Reason
			}
			if r.Fix != "" {
				msg += " (fix: " + r.Fix + ")"
			}
			return nil, "", errors.New(msg)
		}
		return nil, "", err
	}
	why := "asked for with --mode " + mode
	if mode == Auto || mode == "" || mode == string(engine.ModeOverlay) {
		why = Explain(store, ws, "node:"+exe, false).Reason
	}
	return sb, why, nil
}
