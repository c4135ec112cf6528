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

// TestSealedConformance: copy mode sealed by Landlock faces the hostile
// routes a sandbox without namespaces must close (sandboxtest.RunSealed).
func TestSealedConformance(t *testing.T) {
	sandboxtest.RunSealed(t, func(t *testing.T, d sandboxtest.Dirs) engine.Sandbox {
		return New(d.Sandboxes, Options{Exclude: []string{d.State}, RequireSeal: true})
	}, sandboxtest.Promises{Parallel: true})
}
