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

// --freeze wraps the sandbox; the wrapper must not hide the shared
// workspace lock the wrapped sandbox takes for the whole run.
func TestFrozenSandboxPassesTheWorkspaceHoldThrough(t *testing.T) {
	held := false
	var sb engine.Sandbox = frozenSandbox{Sandbox: holdingSandbox{held: &held}}
	h, ok := sb.(engine.RunHolder)
	if !ok {
		t.Fatal("the --freeze wrapper does not implement engine.RunHolder: the run would not take the workspace lock")
	}
	h.HoldRun(context.Background())()
	if !held {
		t.Fatal("the wrapped sandbox's HoldRun was not called")
	}
}
