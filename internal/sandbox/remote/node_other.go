//go:build !linux

package remote

import (
	"fmt"
	"os"
	"runtime"
)

// nodeMain: remote nodes are Linux machines (overlay shadows need Linux).
func nodeMain(args []string, open NodeOpener) int {
	fmt.Fprintf(os.Stderr, "shadow: this machine (%s) cannot be a remote node: nodes must run Linux\n", runtime.GOOS)
	return 3
}
