package cli

import (
	"errors"
	"os"

	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/snap"
)

// defaultStore is the snapshot store in the state directory.
func defaultStore() (snap.Store, error) {
	store, err := snap.DefaultStore()
	if err != nil {
		return snap.Store{}, envErr("%v", err)
	}
	return store, nil
}

// openRecords finds the workspace (-C dir, else the current directory's)
// and the store of a records command (log, show, apply).
func openRecords(dir string) (ws string, store snap.Store, err error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", store, specErr("current directory: %v", err)
	}
	ws, _, err = run.ResolveWorkspace(dir, cwd)
	if err != nil {
		return "", store, specErr("%v", err)
	}
	store, err = defaultStore()
	return ws, store, err
}

// refErr is a failure to find a record: a usage error when the reference
// names nothing, an environment error when the store cannot be read.
func refErr(err error) error {
	var re *snap.RefError
	if errors.As(err, &re) {
		return specErr("%v", err)
	}
	return envErr("%v", err)
}
