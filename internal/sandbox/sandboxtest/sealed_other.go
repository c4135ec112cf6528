//go:build !linux

package sandboxtest

import "testing"

// RunSealed: Landlock is Linux's; elsewhere copy and in-place modes guard
// against accidents only, and there is nothing sealed to test.
func RunSealed(t *testing.T, factory Factory, p Promises) {
	t.Skip("Landlock is a Linux security module")
}
