package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/snap"
)

// applyCommand: `shadow apply RUN/HYP [-C DIR]` writes a recorded
// hypothesis into the checkout with --apply's safety: every target must
// still hold what it held when that run started (recorded with the run),
// else nothing is written (exit 1). Each file is written atomically, its
// mode kept. The logic is snap.Store.ApplyHyp, which the TUI's timeline
// uses too.
func applyCommand(s Streams) *cobra.Command {
	var dir string
	var dryRun, force, withTests bool
	c := &cobra.Command{
		Use:   "apply RUN/HYP [-C DIR] [--dry-run] [--force]",
		Short: "write a recorded hypothesis into the checkout",
		Long: "shadow apply RUN/HYP writes the hypothesis's files into the checkout, as --apply does:\n" +
			"only if every target still holds what it held when that run started (else nothing\n" +
			"is written and the exit code is 1). A hypothesis that did not pass, or whose pass\n" +
			"does not count (disqualified, suspicious, tampered), or that writes what an agent,\n" +
			"an editor or git would obey (a directory git takes for a repository, a git config\n" +
			"variable naming a program, a hook), is refused (exit 1) unless --force. Each target is compared again just before it is written: one changed\n" +
			"meanwhile stops the apply, which names what it wrote and what not (exit 1).\n" +
			"--dry-run makes the same checks and says what would be written, writing nothing.",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 || !strings.Contains(args[0], "/") {
				return usage("apply: want one RUN/HYP, e.g. @last/fix (see `shadow log`)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, store, err := openRecords(dir)
			if err != nil {
				return err
			}
			run, name, err := store.FindHyp(ws, args[0])
			if err != nil {
				return refErr(err)
			}
			if dryRun {
				return dryApply(s, store, ws, run, name, force, withTests)
			}
			return applyHyp(s, store, ws, run, name, force, withTests)
		},
	}
	c.Flags().StringVarP(&dir, "dir", "C", "", "workspace root")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "check and say what would be written; write nothing")
	c.Flags().BoolVar(&force, "force", false, "apply a hypothesis that did not pass, is disqualified, suspicious or tampered, or writes what git would obey")
	c.Flags().BoolVar(&withTests, "with-tests", false, "write the tests it proposed too, not only its code")
	return c
}

func applyHyp(s Streams, store snap.Store, ws, runID, name string, force, withTests bool) error {
	a, err := store.ApplyChecked(ws, runID, name, force, withTests)
	var ce *engine.ConflictError
	var we *snap.WriteError
	var re *snap.RefusedError
	var se *engine.StoppedError
	var ke *engine.RiskyError
	var ne *engine.NotWrittenError // a full disk: nothing written
	switch {
	case errors.As(err, &re):
		fmt.Fprintf(s.Err, "shadow: %v\n", err)
		return exit(run.ExitNone)
	case errors.As(err, &ce), errors.As(err, &se), errors.As(err, &ke):
		fmt.Fprintf(s.Err, "shadow: %s/%s %v\n", runID, name, err)
		return exit(run.ExitNone)
	case errors.As(err, &we), errors.As(err, &ne):
		return envErr("applying %s/%s: %v", runID, name, err)
	case err != nil:
		return envErr("%v", err)
	case a.Baseline:
		fmt.Fprintf(s.Out, "%s/%s changes nothing: nothing to apply\n", runID, name)
	case a.Already:
		fmt.Fprintf(s.Out, "%s/%s is already in %s: nothing to do\n", runID, name, ws)
	default:
		fmt.Fprintf(s.Out, "applied %s/%s to %s: %s\n", runID, name, ws, strings.Join(a.Files, ", "))
	}
	return nil
}

// dryApply makes apply's checks (the verified record, every target as it
// was when the run started) and says what apply would write, writing
// nothing: exit 0 when it would apply, 1 when a target changed.
func dryApply(s Streams, store snap.Store, ws, runID, name string, force, withTests bool) error {
	h, _, err := store.LoadHyp(ws, runID, name)
	if err != nil {
		return envErr("%v", err)
	}
	if !withTests {
		h = store.CodeOnly(ws, runID, h) // its proposed tests stay out (--with-tests)
	}
	if !force {
		var re *snap.RefusedError
		if err := store.CheckRefusal(ws, runID, name); errors.As(err, &re) {
			fmt.Fprintf(s.Err, "shadow: %v\n", err)
			return exit(run.ExitNone)
		} else if err != nil {
			return envErr("%v", err)
		}
	}
	switch {
	case h.IsBaseline():
		fmt.Fprintf(s.Out, "%s/%s changes nothing: nothing to apply\n", runID, name)
		return nil
	case snap.AlreadyApplied(ws, h):
		fmt.Fprintf(s.Out, "%s/%s is already in %s: nothing to do\n", runID, name, ws)
		return nil
	}
	orig, err := store.LoadOriginals(ws, runID)
	if err != nil {
		return envErr("run %s has no record of the checkout at its start: %v", runID, err)
	}
	if err := engine.CheckApplyWith(ws, h, orig, engine.ApplyOptions{Force: force}); err != nil {
		fmt.Fprintf(s.Err, "shadow: %s/%s %v\n", runID, name, err)
		return exit(run.ExitNone)
	}
	for _, f := range h.Files {
		fmt.Fprintf(s.Out, "would write %s (%d bytes, %s)\n", f.Path, len(f.Content), f.Mode.Perm())
	}
	for _, p := range h.Deletes {
		fmt.Fprintf(s.Out, "would delete %s\n", p)
	}
	return nil
}
