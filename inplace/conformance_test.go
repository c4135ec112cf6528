//go:build unix

package inplace

import (
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/sandboxtest"
)

// The conformance suite, for the in-place sandbox: serial, at the
// workspace's own path, in the checkout itself, and not hostile-proof (the
// command runs as the user; docs/modes.md).
func TestConformance(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T, d sandboxtest.Dirs) engine.Sandbox {
		return New(d.State, nil)
	}, sandboxtest.Promises{SamePath: true, InCheckout: true})
}

// TestSealedConformance: in-place mode sealed by Landlock faces the
// hostile routes a sandbox without namespaces must close, but the
// checkout, which is the mode's to write (sandboxtest.RunSealed).
func TestSealedConformance(t *testing.T) {
	sandboxtest.RunSealed(t, func(t *testing.T, d sandboxtest.Dirs) engine.Sandbox {
		return New(d.State, nil).Seal(SealOptions{Require: true})
	}, sandboxtest.Promises{SamePath: true, InCheckout: true})
}
