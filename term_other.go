//go:build !linux

package main

import "os"

// isTerminal: off Linux, assume not a terminal (the text report).
func isTerminal(f *os.File) bool { return false }
