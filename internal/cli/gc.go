package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/inplace"
	"github.com/shadow-dev/shadow/internal/fsutil"
	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/internal/sandbox/warm"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

// gcCommand removes what crashed runs left behind: it replays every
// workspace's leftover in-place journal (restoring the checkout), removes
// overlay upper/work dirs no live run uses (overlay.Sweep), and prunes old
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
	// 1. In-place journals: a run killed with a hypothesis in the checkout.
	wsDirs, _ := filepath.Glob(filepath.Join(store.Root, "workspaces", "*"))
	for _, d := range wsDirs {
		if inplace.HasJournal(d) && !gcJournal(s, d) {
			failed = true
		}
	}
	// 2. Overlay upper/work dirs of crashed runs (and probes).
	for _, sw := range overlay.Sweep(store.SandboxDir(), overlay.TmpSandboxes()) {
		switch {
		case sw.Kept != "":
			fmt.Fprintf(s.Out, "kept %s: %s\n", sw.Dir, sw.Kept)
		case sw.Err != nil:
			fmt.Fprintf(s.Err, "shadow gc: remove %s: %v\n", sw.Dir, sw.Err)
			failed = true
		default:
			fmt.Fprintf(s.Out, "removed %s\n", sw.Dir)
		}
	}
	// 2b. Copy-mode copies of crashed runs.
	if !gcCopies(s, store, wsDirs) {
		failed = true
	}
	// 3. The log dirs of --no-record runs whose process is gone.
	swept, errs := snap.SweepScratch([]string{overlay.TmpRoot(), os.TempDir()}, fsutil.RemoveTree)
	for _, d := range swept {
		fmt.Fprintf(s.Out, "removed %s (a --no-record run's logs; its process is gone)\n", d)
	}
	for _, err := range errs {
		fmt.Fprintln(s.Err, "shadow gc:", err)
		failed = true
	}
	// 3b. Warm layers: of workspaces gone, and over the size cap.
	removed, werrs := warm.GC(run.WarmDir(store), warmMax)
	for _, r := range removed {
		fmt.Fprintf(s.Out, "removed the warm layer of %s (%s, %d bytes): %s\n", r.Workspace, r.Dir, r.Bytes, r.Why)
	}
	for _, err := range werrs {
		fmt.Fprintln(s.Err, "shadow gc: warm layers:", err)
		failed = true
	}
	// 4. Old run records (snap.DefaultPolicy), unused recorded files, and
	// --freeze copies of ended runs.
	if !gcRuns(s, store) {
		failed = true
	}
	// Always one closing line, so a gc with nothing to do still says so.
	fmt.Fprintf(s.Out, "shadow gc: %d workspace(s) in %s checked\n", len(wsDirs), store.Root)
	if failed {
		return exit(run.ExitEnv)
	}
	return nil
}

// gcJournal replays one workspace's journal unless a live run holds the
// workspace (then the journal is that run's, not a leftover).
func gcJournal(s Streams, stateDir string) bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // one try: never wait for a live run
	release, err := inplace.Lock(ctx, filepath.Join(stateDir, inplace.LockName), true, nil)
	if err != nil {
		fmt.Fprintf(s.Out, "kept the journal in %s: a shadow run is using that workspace\n", stateDir)
		return true
	}
	defer release()
	r, err := inplace.Recover(stateDir, "")
	if r.Journal != nil {
		fmt.Fprintf(s.Out, "%s: %s\n", r.Journal.Workspace, r.Describe())
	} else if r.Discarded {
		fmt.Fprintf(s.Out, "removed an unfinished journal in %s (the checkout had not been touched)\n", stateDir)
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(s.Out, "  "+w)
	}
	if err != nil {
		fmt.Fprintln(s.Err, "shadow gc:", err)
		return false
	}
	return true
}

// gcRuns prunes run records by snap.DefaultPolicy (runs older than 30
// days, and all but the newest 200 of each workspace; never a running
// one), the recorded files no record names any more, and the --freeze
// copies of runs whose process is gone.
func gcRuns(s Streams, store snap.Store) bool {
	res, err := store.Prune(snap.DefaultPolicy, time.Now())
	for _, r := range res.Runs {
		fmt.Fprintf(s.Out, "removed run record %s\n", r)
	}
	if res.Objects > 0 {
		fmt.Fprintf(s.Out, "removed %d recorded file(s) no run uses (%d bytes)\n", res.Objects, res.Bytes)
	}
	for _, base := range []string{store.SandboxDir(), overlay.TmpSandboxes()} {
		if n := snap.CleanFrozen(base); n > 0 {
			fmt.Fprintf(s.Out, "removed %d --freeze copy(ies) of ended runs in %s\n", n, base)
		}
	}
	if err != nil {
		fmt.Fprintln(s.Err, "shadow gc: prune run records:", err)
		return false
	}
	return true
}
