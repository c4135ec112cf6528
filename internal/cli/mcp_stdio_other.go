//go:build !linux

package cli

import "os"

// protectStdout returns stdout for the MCP protocol and points os.Stdout at
// stderr so that stray prints of this process cannot corrupt it.
func protectStdout() (*os.File, error) {
	proto := os.Stdout
	os.Stdout = os.Stderr
	return proto, nil
}
