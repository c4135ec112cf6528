package main

import (
	"fmt"
	"os"
)

// cmdApply: `shadow apply` is not in this build yet.
func cmdApply(args []string) int {
	fmt.Fprintln(os.Stderr, "shadow apply: not available in this build yet")
	return exitEnv
}
