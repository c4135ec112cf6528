package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/records"
	"github.com/shadow-dev/shadow/snap"
)

func logCommand(s Streams) *cobra.Command {
	var dir string
	var asJSON bool
	var n int
	c := &cobra.Command{
		Use:   "log [-C DIR] [-n N] [--json]",
		Short: "the recorded runs of this workspace, oldest first",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usage("log takes no arguments (got %q); see `shadow show RUN`", args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, store, err := openRecords(dir)
			if err != nil {
				return err
			}
			runs, err := store.Runs(ws)
			if err != nil {
				return envErr("%v", err)
			}
			if n > 0 && len(runs) > n {
				runs = runs[len(runs)-n:]
			}
			return writeLog(s.Out, ws, runs, asJSON)
		},
	}
	c.Flags().StringVarP(&dir, "dir", "C", "", "workspace root")
	c.Flags().IntVarP(&n, "limit", "n", 0, "only the newest N runs")
	c.Flags().BoolVar(&asJSON, "json", false, "JSON on stdout (schema shadow.log/v1)")
	return c
}

// writeLog writes the timeline of ws's runs: a table, or shadow.log/v1.
func writeLog(w io.Writer, ws string, runs []*snap.RunInfo, asJSON bool) error {
	entries := make([]records.Summary, 0, len(runs))
	for _, ri := range runs {
		entries = append(entries, records.Summarize(ri))
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Schema    string            `json:"schema"`
			Workspace string            `json:"workspace"`
			Runs      []records.Summary `json:"runs"`
		}{"shadow.log/v1", ws, entries})
	}
	if len(entries) == 0 {
		fmt.Fprintf(w, "no recorded runs for %s\n", ws)
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTARTED\tHYPS\tWINNER\tRESULT\tSTATE\tCOMMAND")
	for _, e := range entries {
		winner := "-"
		if e.Winner != nil {
			winner = *e.Winner
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", e.Run, e.StartedAt.Local().Format("2006-01-02 15:04:05"),
			len(e.Hypotheses), winner, resultCell(e), e.StateWord(), oneLine(e.CommandWord(), 60))
	}
	return tw.Flush()
}

// resultCell: "2 passed, 1 failed", with what did not finish.
func resultCell(e records.Summary) string {
	var parts []string
	done := 0
	for _, s := range []string{engine.StatusPassed, engine.StatusFailed, engine.StatusTimedOut, engine.StatusError, engine.StatusCancelled} {
		if n := e.Statuses[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, strings.ReplaceAll(s, "_", " ")))
			done += n
		}
	}
	if n := len(e.Hypotheses) - done; n > 0 {
		parts = append(parts, fmt.Sprintf("%d unfinished", n))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
