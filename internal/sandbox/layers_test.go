package sandbox

import (
	"context"
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/warm"
)

// holdingSandbox records whether the engine asked it to hold the
// workspace, and which lower layers its job was given.
type holdingSandbox struct {
	engine.Sandbox
	held   *bool
	lowers *[]string
}

func (s holdingSandbox) HoldRun(context.Context) func() { *s.held = true; return func() {} }

func (s holdingSandbox) Run(_ context.Context, job engine.Job) (engine.Outcome, error) {
	*s.lowers = job.Lowers
	return engine.Outcome{}, nil
}

// --freeze and the warm layer wrap the sandbox; the wrapper must not hide
// the shared workspace lock the wrapped sandbox takes for the whole run
// (the engine finds it with engine.As, through Unwrap).
func TestFrozenSandboxPassesTheWorkspaceHoldThrough(t *testing.T) {
	held := false
	var sb engine.Sandbox = &layered{Sandbox: holdingSandbox{held: &held}, frozen: "/frozen", warm: &warmRun{}}
	h, ok := engine.As[engine.Holder](sb)
	if !ok {
		t.Fatal("the engine finds no workspace hold through the --freeze and warm wrapper: the run would not take the workspace lock")
	}
	h.HoldRun(context.Background())()
	if !held {
		t.Fatal("the wrapped sandbox's HoldRun was not called")
	}
}

// One wrapper, however many layers: the frozen copy above the job's own
// lowers, the warm layer below them, just above the workspace
// (docs/modes.md "--freeze", "The warm layer").
func TestLayersStackInOneWrapper(t *testing.T) {
	var lowers []string
	inner := holdingSandbox{lowers: &lowers}
	l := wrap(inner)
	l.frozen = "/frozen"
	if again := wrap(l); again != l {
		t.Fatal("a second layer wrapped the sandbox again: a job would go down through two wrappers")
	}
	l.warm = &warmRun{layer: &warm.Layer{Dir: "/warm"}}
	if _, err := l.Run(context.Background(), engine.Job{Lowers: []string{"/own"}}); err != nil {
		t.Fatal(err)
	}
	if len(lowers) != 3 || lowers[0] != "/frozen" || lowers[1] != "/own" || lowers[2] != "/warm" {
		t.Errorf("lowers %q, want the frozen copy above the job's own, the warm layer below them", lowers)
	}
}
