package remote

import (
	"fmt"
	"os"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/entry"
	"github.com/shadow-dev/shadow/snap"
)

// NodeOpener opens the sandbox a node runs its jobs in, for the --mode the
// local side asked (mode; "auto" when none), on the mirror at ws, and says
// why that one ("asked for with --mode copy", or the probe's reason). It
// is internal/sandbox's decision (sandbox.OpenNode), handed in through
// NodePoint: internal/sandbox builds this package's Sandbox, so this
// package cannot import it.
type NodeOpener func(store snap.Store, ws, mode string) (engine.Sandbox, string, error)

// NodePoint is the node side of --remote in shadow's table of hidden
// entry points, running its jobs in the sandboxes open opens: started over
// ssh once per run and node (not per hypothesis), so it is not Early:
// main's entry.Dispatch takes it over, after the descriptors inherited
// from the caller are closed. internal/sandbox registers it.
func NodePoint(open NodeOpener) entry.Point {
	return entry.Point{Name: "the node side of --remote (over ssh)", Arg1: NodeArg, Main: func() int { return nodeMain(os.Args[2:], open) }}
}

func nodeUsage() int {
	fmt.Fprintf(os.Stderr, "shadow %s: the node side of --remote, started by shadow over ssh: hold WORKSPACE\n", NodeArg)
	return 2
}
