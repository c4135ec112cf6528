package main

import (
	"fmt"
	"os"
)

// cmdMCP: `shadow mcp` is not in this build yet.
func cmdMCP(args []string) int {
	fmt.Fprintln(os.Stderr, "shadow mcp: not available in this build yet")
	return exitEnv
}
