package remote

import (
	"fmt"
	"os"

	"github.com/shadow-dev/shadow/internal/sandbox/entry"
)

// point is the node side of --remote in shadow's table of hidden entry
// points: started over ssh once per run and node (not per hypothesis), so
// it is not Early: main's entry.Dispatch takes it over, after the
// descriptors inherited from the caller are closed.
var point = entry.Point{Name: "the node side of --remote (over ssh)", Arg1: NodeArg, Main: func() int { return nodeMain(os.Args[2:]) }}

func init() { entry.Register(point) }

// MaybeNode runs the node side when this process was started as one
// (argv[1] is NodeArg) and exits; for TestMain of the tests that simulate
// nodes (main dispatches it through the table).
func MaybeNode() { entry.Maybe(point) }

func nodeUsage() int {
	fmt.Fprintf(os.Stderr, "shadow %s: the node side of --remote, started by shadow over ssh: hold WORKSPACE\n", NodeArg)
	return 2
}
