package sandbox

import (
	"context"
	"io"
	"path/filepath"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/inplace"
	"github.com/shadow-dev/shadow/snap"
)

// LockPath is the workspace lock's file, in the workspace's state dir.
func LockPath(store snap.Store, ws string) string {
	return filepath.Join(store.WorkspaceDir(ws), inplace.LockName)
}

// locked is a sandbox that holds the workspace lock shared for its whole
// run: overlay and copy runs go on side by side, but none starts while an
// in-place run has a hypothesis in the checkout (it would become an
// overlay's lower layer, or be copied), and an in-place run waits for them
// to finish. The one wrapper for it: everything else of the sandbox is
// found through Unwrap (engine.As).
type locked struct {
	engine.Sandbox
	lock    string
	notices io.Writer
}

// Locked wraps sb so that it holds the lock at path shared for its run.
func Locked(sb engine.Sandbox, path string, notices io.Writer) engine.Sandbox {
	return &locked{Sandbox: sb, lock: path, notices: notices}
}

func (s *locked) Unwrap() engine.Sandbox { return s.Sandbox }

func (s *locked) HoldRun(ctx context.Context) func() {
	rel, err := inplace.Lock(ctx, s.lock, false, s.notices)
	if err != nil {
		return func() {}
	}
	return rel
}
