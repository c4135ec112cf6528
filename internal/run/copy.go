package run

import (
	"context"
	"io"
	"path/filepath"

	"github.com/shadow-dev/shadow/inplace"
	"github.com/shadow-dev/shadow/internal/sandbox/copy"
	"github.com/shadow-dev/shadow/snap"
)

// newCopy makes the copy-mode sandbox: copies under copy.Base (the state
// dir when it is on the workspace's filesystem, so blocks can be shared),
// never copying shadow's own state when it lies inside the workspace. It
// fails when no copy can be made here (then auto falls back to in place).
func newCopy(o *Options, store snap.Store, ws string) (*sharedCopy, error) {
	base := copy.Base(store.SandboxDir(), ws)
	if err := copy.Usable(base, ws); err != nil {
		return nil, err
	}
	sb := copy.New(base, copy.Options{Skip: o.CopySkip, Exclude: ShadowDirs(store)})
	return &sharedCopy{Sandbox: sb, lock: filepath.Join(store.WorkspaceDir(ws), inplace.LockName), notices: o.notices()}, nil
}

// sharedCopy holds the workspace lock shared for its whole run, like
// sharedOverlay: a copy made while an in-place run has a hypothesis in the
// checkout would copy that hypothesis.
type sharedCopy struct {
	*copy.Sandbox
	lock    string
	notices io.Writer
}

func (s *sharedCopy) HoldRun(ctx context.Context) func() {
	rel, err := inplace.Lock(ctx, s.lock, false, s.notices)
	if err != nil {
		return func() {}
	}
	return rel
}
