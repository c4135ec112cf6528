package remote

import (
	"fmt"
	"os"
)

// MaybeNode runs the node side when this process was started as one
// (argv[1] is NodeArg) and exits; main calls it before parsing flags.
func MaybeNode() {
	if len(os.Args) > 1 && os.Args[1] == NodeArg {
		os.Exit(nodeMain(os.Args[2:]))
	}
}

func nodeUsage() int {
	fmt.Fprintf(os.Stderr, "shadow %s: the node side of --remote, started by shadow over ssh: hold WORKSPACE\n", NodeArg)
	return 2
}
