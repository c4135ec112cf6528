package run

import (
	"context"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// holdingSandbox records whether the engine asked it to hold the workspace.
type holdingSandbox struct {
	engine.Sandbox
	held *bool
}

func (s holdingSandbox) HoldRun(context.Context) func() { *s.held = true; return func() {} }

// --freeze and the warm layer wrap the sandbox; the wrappers must not hide
// the shared workspace lock the wrapped sandbox takes for the whole run
// (the engine finds it with engine.As, through Unwrap).
func TestFrozenSandboxPassesTheWorkspaceHoldThrough(t *testing.T) {
	held := false
	var sb engine.Sandbox = &warmSandbox{Sandbox: frozenSandbox{Sandbox: holdingSandbox{held: &held}}}
	h, ok := engine.As[engine.Holder](sb)
	if !ok {
		t.Fatal("the engine finds no workspace hold through the --freeze and warm wrappers: the run would not take the workspace lock")
	}
	h.HoldRun(context.Background())()
	if !held {
		t.Fatal("the wrapped sandbox's HoldRun was not called")
	}
}
