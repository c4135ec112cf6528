//go:build unix && !linux

package reexec

import "os"

// Self is the binary to re-execute (no /proc/self/exe here).
func Self() (string, error) { return os.Executable() }
