package main

import (
	"fmt"
	"os"
)

// cmdShow: `shadow show` is not in this build yet.
func cmdShow(args []string) int {
	fmt.Fprintln(os.Stderr, "shadow show: not available in this build yet")
	return exitEnv
}
