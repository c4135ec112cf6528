package run

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/shadow-dev/shadow/inplace"
	"github.com/shadow-dev/shadow/snap"
)

// recoverWorkspace replays a journal an interrupted in-place run left for
// ws, before anything else reads or changes the checkout (patches are
// resolved against it), and says so on notices. A journal whose run is
// still going (it holds the workspace lock) is waited for, until ctx ends,
// never replayed under it. It refuses (ExitEnv) when the checkout could not
// be restored: nothing may run on top of a hypothesis left in it.
func recoverWorkspace(ctx context.Context, store snap.Store, ws string, o *Options) error {
	stateDir := store.WorkspaceDir(ws)
	if !inplace.HasJournal(stateDir) {
		return nil
	}
	release, err := inplace.Lock(ctx, filepath.Join(stateDir, inplace.LockName), true, o.notices())
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return Env("%v", err)
	}
	defer release()
	r, err := inplace.Recover(stateDir, ws)
	if d := r.Describe(); d != "" {
		fmt.Fprintln(o.notices(), "shadow: "+d)
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(o.notices(), "shadow: "+w)
	}
	if err != nil {
		return Env("%v", err)
	}
	return nil
}
