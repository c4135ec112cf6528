package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/engine/judge"
	"github.com/shadow-dev/shadow/internal/run"
)

func mergeCommand(s Streams) *cobra.Command {
	var asJSON bool
	var ap mergeApplyFlags
	c := &cobra.Command{
		Use:   "merge REPORT... [--json] [--apply --spec SPEC [--with-tests] [--force] [-C DIR]]",
		Short: "join the shard reports of one run (--shard K/N) into one ranked report",
		Long: `merge reads the reports of every shard of one run (files, or - for stdin;
each a --json report or a --events stream) and prints one report ranked as the
unsharded run would rank the same results. It refuses (exit 2, naming the
report) reports that are not shadow's or not shards, shards of another spec,
command, commit or shard count, and a missing or duplicated index.
Exit codes as a run's: 0 a winner, 1 none, 2 refused.

--apply writes the winner into the checkout (-C DIR) as shadow apply does, and
records the merged report like a run (shadow log, show, apply, watch). It needs
--spec SPEC, the spec the shards ran: the winner's files are taken from it,
resolved here and checked against the shards' spec_sha256, never from a
shard's report. The checkout must be at the shards' commit (--force: HEAD may
have moved) and every file written must hold what it held there; a refused
apply writes nothing and exits 1. --with-tests writes its proposed tests too.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usage("merge: give the shards' reports (files, or - for stdin)")
			}
			if !ap.apply && (ap.spec != "" || ap.withTests || ap.force || ap.dir != "") {
				return usage("merge: --spec, --with-tests, --force and -C go with --apply")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			reps := make([]*engine.Report, 0, len(args))
			stdinUsed := false
			for _, a := range args {
				var r io.Reader
				if a == "-" {
					if stdinUsed {
						return usage("merge: - (stdin) given twice")
					}
					stdinUsed = true
					r = s.In
				} else {
					f, err := os.Open(a)
					if err != nil {
						return specErr("merge: %v", err)
					}
					defer f.Close()
					r = f
				}
				rep, err := readShardReport(r)
				if err != nil {
					return specErr("merge: %s: %v", a, err)
				}
				reps = append(reps, rep)
			}
			merged, err := judge.MergeShards(reps, args)
			if err != nil {
				var me *judge.MergeError
				if errors.As(err, &me) {
					return specErr("%s", me.Msg)
				}
				return err
			}
			if ap.apply {
				if merged, err = ap.run(s, merged, reps[0].Shard, stdinUsed); err != nil {
					return err
				}
			}
			return writeMerged(s, merged, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "one JSON report (shadow.report/v1, merged_from set) on stdout")
	ap.register(c)
	return c
}

// mergeApplyFlags are merge's --apply and what goes with it.
type mergeApplyFlags struct {
	apply, withTests, force bool
	spec, dir               string
}

func (f *mergeApplyFlags) register(c *cobra.Command) {
	c.Flags().BoolVar(&f.apply, "apply", false, "write the winner into the checkout and record the merged report like a run (needs --spec)")
	c.Flags().StringVar(&f.spec, "spec", "", "with --apply: the spec the shards ran (- for stdin); the winner's files come from it")
	c.Flags().BoolVar(&f.withTests, "with-tests", false, "with --apply: write the winner's proposed tests too, not only its code")
	c.Flags().BoolVar(&f.force, "force", false, "with --apply: apply although the checkout's HEAD moved since the shards' commit")
	c.Flags().StringVarP(&f.dir, "dir", "C", "", "with --apply: the workspace root (default: the git top-level of the current directory)")
}

// run checks the flags, writes the winner and records the merged report
// (run.ApplyMerge); it returns the report as recorded.
func (f *mergeApplyFlags) run(s Streams, merged *engine.Report, shard *engine.ShardInfo, stdinUsed bool) (*engine.Report, error) {
	if f.spec == "" {
		return nil, usage("merge --apply: give --spec SPEC, the spec the shards ran: the winner's files come from it, never from a shard's report")
	}
	if f.spec == "-" && stdinUsed {
		return nil, usage("merge --apply: - (stdin) given for a report and for --spec")
	}
	spec, specDir, err := engine.LoadSpec(f.spec, s.In)
	if err != nil {
		return nil, specErr("merge --apply: %v", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, specErr("current directory: %v", err)
	}
	return run.ApplyMerge(merged, shard, run.MergeApply{Spec: spec, SpecDir: specDir, Dir: f.dir, Cwd: cwd,
		WithTests: f.withTests, Force: f.force, Notices: s.Err})
}

// writeMerged prints a merged report (JSON or text) and returns the exit
// a run's report would give: 3 when a shard's run failed, 1 without a
// winner. `shadow kube collect` ends the same way.
func writeMerged(s Streams, merged *engine.Report, asJSON bool) error {
	for _, n := range merged.MergeNotes {
		fmt.Fprintln(s.Err, "shadow: merge:", n)
	}
	if asJSON {
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(merged); err != nil {
			return err
		}
	} else {
		writeTextReport(s.Out, merged, false)
	}
	switch {
	case merged.Error != "":
		return exit(run.ExitEnv)
	case merged.Winner == nil:
		return exit(run.ExitNone)
	case merged.ApplyError != "":
		if asJSON { // the text report says it
			fmt.Fprintf(s.Err, "shadow: merge --apply: %s\n", merged.ApplyError)
		}
		return exit(run.ExitNone)
	}
	return nil
}

// readShardReport reads one shard's report (judge.ReadShardReport).
func readShardReport(r io.Reader) (*engine.Report, error) { return judge.ReadShardReport(r) }
