package main

import (
	"fmt"
	"os"
)

// cmdGC: `shadow gc` is not in this build yet.
func cmdGC(args []string) int {
	fmt.Fprintln(os.Stderr, "shadow gc: not available in this build yet")
	return exitEnv
}
