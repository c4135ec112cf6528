package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/shadow-dev/shadow/inplace"
	"github.com/shadow-dev/shadow/snap"
)

// recoverWorkspace replays a journal an interrupted in-place run left for
// ws, before anything else reads or changes the checkout (patches are
// resolved against it), and says so on stderr. A journal whose run is
// still going (it holds the workspace lock) is waited for, never replayed
// under it. It refuses (exit 3) when the checkout could not be restored:
// nothing may run on top of a hypothesis left in it.
func recoverWorkspace(ws string) *planError {
	root, err := snap.DefaultRoot()
	if err != nil {
		return nil // planRun reports the missing state dir
	}
	stateDir := snap.Store{Root: root}.WorkspaceDir(ws)
	if !inplace.HasJournal(stateDir) {
		return nil
	}
	release, err := inplace.Lock(context.Background(), filepath.Join(stateDir, inplace.LockName), true, os.Stderr)
	if err != nil {
		return &planError{code: exitEnv, msg: err.Error()}
	}
	defer release()
	r, err := inplace.Recover(stateDir, ws)
	if d := r.Describe(); d != "" {
		fmt.Fprintln(os.Stderr, "shadow: "+d)
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(os.Stderr, "shadow: "+w)
	}
	if err != nil {
		return &planError{code: exitEnv, msg: err.Error()}
	}
	return nil
}
