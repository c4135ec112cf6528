package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// cmdApply: `shadow apply RUN/HYP [-C DIR]` writes a recorded hypothesis
// into the checkout with --apply's safety: every target must still hold
// what it held when that run started (recorded with the run), else nothing
// is written (exit 1). Each file is written atomically, its mode kept. The
// logic is snap.Store.ApplyHyp, which the TUI's timeline uses too.
func cmdApply(args []string) int {
	pos, _, ws, store, code := openRecords("apply", args, false, false)
	if code != 0 {
		return code
	}
	if len(pos) != 1 || !strings.Contains(pos[0], "/") {
		return usageErr("apply: want one RUN/HYP, e.g. @last/fix (see `shadow log`)")
	}
	run, name, err := store.FindHyp(ws, pos[0])
	if err != nil {
		return recRefErr(err)
	}
	a, err := store.ApplyHyp(ws, run, name)
	var ce *engine.ConflictError
	var we *snap.WriteError
	switch {
	case errors.As(err, &ce):
		fmt.Fprintf(os.Stderr, "shadow: %s/%s %v\n", run, name, err)
		return exitNone
	case errors.As(err, &we):
		fmt.Fprintf(os.Stderr, "shadow: applying %s/%s: %v\n", run, name, err)
		return exitEnv
	case err != nil:
		fmt.Fprintln(os.Stderr, "shadow:", err)
		return exitEnv
	case a.Baseline:
		fmt.Printf("%s/%s changes nothing: nothing to apply\n", run, name)
	case a.Already:
		fmt.Printf("%s/%s is already in %s: nothing to do\n", run, name, ws)
	default:
		fmt.Printf("applied %s/%s to %s: %s\n", run, name, ws, strings.Join(a.Files, ", "))
	}
	return 0
}
