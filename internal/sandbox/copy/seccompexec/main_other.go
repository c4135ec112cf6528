//go:build !linux

// Command seccompexec is Linux-only: seccomp filters are a Linux feature.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "seccompexec: seccomp is Linux-only")
	os.Exit(2)
}
