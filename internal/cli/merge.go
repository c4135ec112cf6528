package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/run"
)

func mergeCommand(s Streams) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "merge REPORT... [--json]",
		Short: "join the shard reports of one run (--shard K/N) into one ranked report",
		Long: `merge reads the reports of every shard of one run (files, or - for stdin;
each a --json report or a --events stream) and prints one report ranked as the
unsharded run would rank the same results. It refuses (exit 2, naming the
report) reports that are not shadow's or not shards, shards of another spec,
command, commit or shard count, and a missing or duplicated index.
Exit codes as a run's: 0 a winner, 1 none, 2 refused.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usage("merge: give the shards' reports (files, or - for stdin)")
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
			merged, err := engine.MergeShards(reps, args)
			if err != nil {
				var me *engine.MergeError
				if errors.As(err, &me) {
					return specErr("%s", me.Msg)
				}
				return err
			}
			return writeMerged(s, merged, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "one JSON report (shadow.report/v1, merged_from set) on stdout")
	return c
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
		engine.WriteText(s.Out, merged)
	}
	switch {
	case merged.Error != "":
		return exit(run.ExitEnv)
	case merged.Winner == nil:
		return exit(run.ExitNone)
	}
	return nil
}

// readShardReport reads one shard's report: a shadow.report/v1 document
// (--json), or a shadow.event/v1 stream (--events) whose run_finished
// event carries it. A stream cut before run_finished is refused: that
// shard did not finish, and its index must run again.
func readShardReport(r io.Reader) (*engine.Report, error) {
	data, err := io.ReadAll(io.LimitReader(r, 1<<30))
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("empty: not a shadow report")
	}
	var probe struct {
		Schema string `json:"schema"`
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&probe); err != nil {
		return nil, fmt.Errorf("not a shadow report (%v)", err)
	}
	switch probe.Schema {
	case engine.ReportSchema:
		var rep engine.Report
		if err := json.Unmarshal(trimmed, &rep); err != nil {
			return nil, fmt.Errorf("not a shadow report (%v)", err)
		}
		return &rep, nil
	case engine.EventSchema:
		sc := bufio.NewScanner(bytes.NewReader(trimmed))
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		for sc.Scan() {
			var ev struct {
				Kind   string         `json:"kind"`
				Report *engine.Report `json:"report"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				return nil, fmt.Errorf("event stream: %v", err)
			}
			if ev.Kind == engine.KindRunFinished && ev.Report != nil {
				return ev.Report, nil
			}
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("event stream ends before run_finished: that shard did not finish; run its index again")
	}
	return nil, fmt.Errorf("not a shadow report (schema %q)", probe.Schema)
}
