package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/internal/sandbox"
	"github.com/shadow-dev/shadow/internal/sandbox/warm"
	"github.com/shadow-dev/shadow/snap"
)

// gcCommand removes what crashed runs left behind (sandbox.Sweep: it
// replays every workspace's leftover in-place journal, restoring the
// checkout, and removes every mode's dirs no live run uses) and prunes old
// run records.
func gcCommand(s Streams) *cobra.Command {
	var warmMax int64
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "restore interrupted in-place runs, remove what crashed runs left, prune old records",
		Args:  noArgs("usage: shadow gc [--warm-max SIZE]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := defaultStore()
			if err != nil {
				return err
			}
			if warmMax == 0 {
				if warmMax, err = warmMaxFromEnv(); err != nil {
					return err
				}
			}
			return gc(s, store, warmMax)
		},
	}
	cmd.Flags().Var(run.SizeValue{N: &warmMax}, "warm-max", "bound of all workspaces' warm build-output layers together (default $SHADOW_WARM_MAX, else 2G)")
	return cmd
}

// warmMaxFromEnv is $SHADOW_WARM_MAX, else warm.DefaultMaxBytes.
func warmMaxFromEnv() (int64, error) {
	v := os.Getenv("SHADOW_WARM_MAX")
	if v == "" {
		return warm.DefaultMaxBytes, nil
	}
	n, err := engine.ParseSize(v)
	if err != nil {
		return 0, &run.Error{Code: run.ExitUsage, Msg: fmt.Sprintf("SHADOW_WARM_MAX=%q: %v", v, err)}
	}
	return n, nil
}

func gc(s Streams, store snap.Store, warmMax int64) error {
	failed := false
	// Every mode's leftovers: internal/sandbox knows them, gc prints them.
	swept, workspaces := sandbox.Sweep(store, warmMax)
	for _, sw := range swept {
		if sw.Err != nil {
			fmt.Fprintln(s.Err, "shadow gc:", sw.Err)
			failed = true
			continue
		}
		fmt.Fprintln(s.Out, sw.Line)
	}
	// Old run records (snap.DefaultPolicy) and unused recorded files.
	if !gcRuns(s, store) {
		failed = true
	}
	// Always one closing line, so a gc with nothing to do still says so.
	fmt.Fprintf(s.Out, "shadow gc: %d workspace(s) in %s checked\n", workspaces, store.Root)
	if failed {
		return exit(run.ExitEnv)
	}
	return nil
}

// gcRuns prunes run records by snap.DefaultPolicy (runs older than 30
// days, and all but the newest 200 of each workspace; never a running
// one) and the recorded files no record names any more.
func gcRuns(s Streams, store snap.Store) bool {
	res, err := store.Prune(snap.DefaultPolicy, time.Now())
	for _, r := range res.Runs {
		fmt.Fprintf(s.Out, "removed run record %s\n", r)
	}
	if res.Objects > 0 {
		fmt.Fprintf(s.Out, "removed %d recorded file(s) no run uses (%d bytes)\n", res.Objects, res.Bytes)
	}
	if err != nil {
		fmt.Fprintln(s.Err, "shadow gc: prune run records:", err)
		return false
	}
	return true
}
