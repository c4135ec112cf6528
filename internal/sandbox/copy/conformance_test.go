//go:build linux || darwin

package copy

import (
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/sandboxtest"
)

// TestConformance: copy mode keeps the promises every sandbox keeps, in
// parallel; it runs at another path and guards against accidents, not a
// hostile command (docs/modes.md).
func TestConformance(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T, d sandboxtest.Dirs) engine.Sandbox {
		return New(d.Sandboxes, Options{Exclude: []string{d.State}})
	}, sandboxtest.Promises{Parallel: true})
}
