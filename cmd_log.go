package main

import (
	"fmt"
	"os"
)

// cmdLog: `shadow log` is not in this build yet.
func cmdLog(args []string) int {
	fmt.Fprintln(os.Stderr, "shadow log: not available in this build yet")
	return exitEnv
}
