//go:build !linux

package sandboxtest

import "testing"

// The hostile routes are Linux namespace escapes; elsewhere no sandbox is
// hostile-proof.
func runHostile(t *testing.T, s *suite) {
	t.Run("Hostile", func(t *testing.T) { t.Skip("hostile-proof sandboxes need Linux") })
}
