package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shadow-dev/shadow/engine"
)

// cmdApply: `shadow apply RUN/HYP [-C DIR]` writes a recorded hypothesis
// into the checkout with --apply's safety: every target must still hold
// what it held when that run started (recorded with the run), else nothing
// is upperEntry (exit 1). Each file is upperEntry atomically, its mode kept.
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
	h, _, err := store.LoadHyp(ws, run, name)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shadow:", err)
		return exitEnv
	}
	if h.IsBaseline() {
		fmt.Printf("%s/%s changes nothing: nothing to apply\n", run, name)
		return 0
	}
	orig, err := store.LoadOriginals(ws, run)
	if err != nil {
		fmt.Fprintf(os.Stderr, "shadow: run %s has no record of the checkout at its start, so a change since cannot be detected: %v\n", run, err)
		return exitEnv
	}
	for _, f := range h.Files {
		if _, ok := orig[f.Path]; !ok {
			fmt.Fprintf(os.Stderr, "shadow: run %s has no record of %s at its start: not applied\n", run, f.Path)
			return exitEnv
		}
	}
	for _, p := range h.Deletes {
		if _, ok := orig[p]; !ok {
			fmt.Fprintf(os.Stderr, "shadow: run %s has no record of %s at its start: not applied\n", run, p)
			return exitEnv
		}
	}
	if alreadyApplied(ws, h) {
		fmt.Printf("%s/%s is already in %s: nothing to do\n", run, name, ws)
		return 0
	}
	applied, err := engine.ApplyHypothesis(ws, h, orig)
	var ce *engine.ConflictError
	switch {
	case errors.As(err, &ce):
		fmt.Fprintf(os.Stderr, "shadow: %s/%s %v\n", run, name, err)
		return exitNone
	case err != nil:
		fmt.Fprintf(os.Stderr, "shadow: applying %s/%s: %v (written before the failure: %s)\n", run, name, err, strings.Join(applied, ", "))
		return exitEnv
	}
	fmt.Printf("applied %s/%s to %s: %s\n", run, name, ws, strings.Join(applied, ", "))
	return 0
}

// alreadyApplied reports whether the checkout already holds every file of
// h (content and mode) and none of its deletes.
func alreadyApplied(ws string, h engine.Hypothesis) bool {
	for _, f := range h.Files {
		p := filepath.Join(ws, filepath.FromSlash(f.Path))
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != f.Mode.Perm() {
			return false
		}
		if b, err := os.ReadFile(p); err != nil || !bytes.Equal(b, f.Content) {
			return false
		}
	}
	for _, d := range h.Deletes {
		if _, err := os.Lstat(filepath.Join(ws, filepath.FromSlash(d))); err == nil {
			return false
		}
	}
	return true
}
