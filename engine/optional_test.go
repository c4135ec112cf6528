package engine

import (
	"context"
	"strings"
	"testing"
)

// plainWrapper wraps a sandbox and forwards nothing but Run, Mode and
// Parallel, as --freeze's and the warm layer's wrappers do: the optional
// interfaces of what it wraps must still be found (As, through Unwrap).
type plainWrapper struct{ Sandbox }

func (w plainWrapper) Unwrap() Sandbox { return w.Sandbox }

type holdingSandbox struct {
	*dyingSandbox
	held, released int
}

func (h *holdingSandbox) HoldRun(context.Context) func() {
	h.held++
	return func() { h.released++ }
}

func (h *holdingSandbox) Syncs() []NodeSync { return []NodeSync{{Node: "n1"}} }

// A wrapper two deep hides nothing: the run holds the workspace through
// it, reports the syncs and stops when what it wraps is exhausted (a
// wrapper that forwarded only HoldRun by hand dropped the others: an
// exhausted remote sandbox under --freeze ran on).
func TestOptionalInterfacesAreFoundThroughWrappers(t *testing.T) {
	inner := &holdingSandbox{dyingSandbox: &dyingSandbox{}}
	sb := plainWrapper{plainWrapper{inner}}
	if _, ok := sb.Sandbox.(Exhauster); ok {
		t.Fatal("the test wrapper must not implement Exhauster itself")
	}
	cfg, _ := testConfig(t, sb, hyp("fix", file("lib.rs", "fixed\n")), hyp("last"), hyp("never"))
	cfg.Jobs = 1
	rep := Run(context.Background(), cfg)
	if inner.held != 1 || inner.released != 1 {
		t.Errorf("held %d released %d, want 1 and 1", inner.held, inner.released)
	}
	if len(rep.Sync) != 1 {
		t.Errorf("syncs %v", rep.Sync)
	}
	if strings.Join(inner.ran, ",") != "fix,last" || !strings.Contains(rep.Error, "node n1") {
		t.Errorf("ran %v, error %q: the exhausted sandbox was not seen through the wrappers", inner.ran, rep.Error)
	}
}

func TestAsStopsAtTheFirstImplementation(t *testing.T) {
	inner := &holdingSandbox{dyingSandbox: &dyingSandbox{}}
	outer := &holdingSandbox{dyingSandbox: &dyingSandbox{}}
	// outer wraps nothing: As finds it; a wrapper over inner finds inner.
	if h, ok := As[Holder](outer); !ok || h != Holder(outer) {
		t.Errorf("As on the sandbox itself: %v %v", h, ok)
	}
	if h, ok := As[Holder](plainWrapper{inner}); !ok || h != Holder(inner) {
		t.Errorf("As through a wrapper: %v %v", h, ok)
	}
	if _, ok := As[Checker](plainWrapper{inner}); ok {
		t.Error("As found a Checker nobody implements")
	}
}
