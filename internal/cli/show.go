package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/shadow-dev/shadow/internal/records"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/spf13/cobra"
	"io"
	"os"
	"strings"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

func showCommand(s Streams) *cobra.Command {
	var dir string
	var asJSON, asPatch, raw bool
	c := &cobra.Command{
		Use:   "show RUN[/HYP] [-C DIR] [--json|--patch] [--raw]",
		Short: "one recorded run or hypothesis: result, diff, full output",
		Long: "shadow show RUN gives a recorded run's report; shadow show RUN/HYP one hypothesis's\n" +
			"status, files, diff, what the command wrote (with --keep) and full output.\n" +
			"RUN is a run id, a unique prefix of one, or @last. With --patch, RUN/HYP's changes\n" +
			"as a patch `git apply` accepts (from the verified record, as apply would write them).\n" +
			"A hypothesis's output and diff are its own: terminal control sequences in them (OSC 52\n" +
			"clipboard writes, titles, clear screen, cursor moves) are dropped unless --raw (--patch\n" +
			"keeps them when stdout is not a terminal, so git apply gets the exact patch).",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usage("show: want one RUN or RUN/HYP (RUN: a run id, a unique prefix of one, or @last)")
			}
			if asPatch && (asJSON || !strings.Contains(args[0], "/")) {
				return usage("show --patch: want one RUN/HYP, and not --json")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, store, err := openRecords(dir)
			if err != nil {
				return err
			}
			ri, hyp, err := records.Find(store, ws, args[0])
			if err != nil {
				return refErr(err)
			}
			// The text is the hypothesis's to write; the terminal is the
			// user's (termsafe.go). JSON escapes control characters itself.
			if !raw && !asJSON && (!asPatch || s.terminal(s.Out)) {
				s.Out = newTermSafe(s.Out)
			}
			if asPatch {
				return showPatch(s, store, ws, ri, hyp)
			}
			if !strings.Contains(args[0], "/") {
				return showRunRecord(s.Out, ri, asJSON)
			}
			return showHypRecord(s.Out, store, ws, ri, hyp, asJSON)
		},
	}
	c.Flags().StringVarP(&dir, "dir", "C", "", "workspace root")
	c.Flags().BoolVar(&asJSON, "json", false, "JSON on stdout (schema shadow.run/v1 or shadow.hyp/v1)")
	c.Flags().BoolVar(&asPatch, "patch", false, "RUN/HYP's changes as a patch git apply accepts")
	c.Flags().BoolVar(&raw, "raw", false, "write the output and diff as recorded, terminal control sequences included")
	return c
}

// showPatch prints a hypothesis's changes against the originals recorded
// at its run's start, from the verified records (what `shadow apply`
// writes), as a patch `git apply` accepts; nothing for a baseline.
func showPatch(s Streams, store snap.Store, ws string, ri *snap.RunInfo, name string) error {
	h, _, err := store.LoadHyp(ws, ri.ID, name)
	if err != nil {
		return envErr("%s/%s: %v", ri.ID, name, err)
	}
	orig, err := store.LoadOriginals(ws, ri.ID)
	if err != nil {
		return envErr("%s/%s: %v", ri.ID, name, err)
	}
	d := records.RecordDiff(h, orig)
	if d == "" {
		fmt.Fprintf(s.Err, "shadow: %s/%s changes nothing\n", ri.ID, name)
	}
	_, err = io.WriteString(s.Out, d)
	return err
}

func showRunRecord(w io.Writer, ri *snap.RunInfo, asJSON bool) error {
	if !asJSON {
		warnUnverified(w, ri)
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Schema     string           `json:"schema"`
			Run        string           `json:"run"`
			State      string           `json:"state"`
			Dir        string           `json:"dir"`
			Meta       *snap.Meta       `json:"meta"`
			Hypotheses []string         `json:"hypotheses"`
			Results    []*engine.Result `json:"results"`
			Report     *engine.Report   `json:"report"`
		}{"shadow.run/v1", ri.ID, ri.State, ri.Dir, ri.Meta, recOrEmpty(ri.Hyps), ri.Results, ri.Report})
	}
	e := records.Summarize(ri)
	fmt.Fprintf(w, "run %s  %s  started %s\n", ri.ID, e.StateWord(), e.StartedAt.Local().Format("2006-01-02 15:04:05"))
	if ri.Report != nil {
		engine.WriteText(w, ri.Report)
	} else {
		if ri.Meta != nil {
			fmt.Fprintf(w, "$ %s   (%d hypothesis(es), on %s)\n", records.Quote(ri.Meta.Command), len(ri.Hyps), ri.Meta.Workspace)
		}
		switch ri.State {
		case snap.StateInterrupted:
			fmt.Fprintln(w, "interrupted: the recording process ended before the run finished (killed, crashed or rebooted)")
		case snap.StateRunning:
			fmt.Fprintln(w, "running: follow it with `shadow watch`")
		}
		for _, name := range ri.Hyps {
			if r := records.Result(ri, name); r != nil {
				fmt.Fprintf(w, "  %-20s %s in %.1fs, ~%d changed line(s)\n", name, r.Status, float64(r.DurationMS)/1000, r.ChangedLines)
			} else {
				fmt.Fprintf(w, "  %-20s did not finish\n", name)
			}
		}
	}
	fmt.Fprintf(w, "\nrecord: %s\n", ri.Dir)
	if len(ri.Hyps) > 0 {
		fmt.Fprintf(w, "details: shadow show %s/HYP   (HYP: %s)\n", ri.ID, strings.Join(ri.Hyps, ", "))
	}
	return nil
}

func recOrEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// showHypRecord prints one recorded hypothesis: what records.ShowHyp read
// from the verified records (the integrity warning first, as shadow_show
// and the TUI show it), then the full output.
func showHypRecord(w io.Writer, store snap.Store, ws string, ri *snap.RunInfo, name string, asJSON bool) error {
	h, err := records.ShowHyp(store, ws, ri, name)
	if err != nil {
		// What show would print is not what the run recorded: say so,
		// print nothing of it (apply refuses it the same way).
		return envErr("%v", err)
	}
	output, _ := os.ReadFile(h.Log)

	if asJSON {
		doc := struct {
			Schema   string               `json:"schema"`
			Run      string               `json:"run"`
			Hyp      string               `json:"hyp"`
			RunState string               `json:"run_state"`
			Warning  string               `json:"warning,omitempty"`
			Base     string               `json:"base,omitempty"`
			BaseRun  string               `json:"base_run,omitempty"`
			Result   *engine.Result       `json:"result"`
			Files    []snap.FileRecord    `json:"files"`
			Deleted  []string             `json:"deleted"`
			Diff     string               `json:"diff"`
			Kept     bool                 `json:"kept"`
			Written  []overlay.UpperEntry `json:"written"`
			Log      string               `json:"log"`
			Output   string               `json:"output"`
		}{Schema: "shadow.hyp/v1", Run: h.Run, Hyp: h.Name, RunState: h.RunState, Warning: h.Warning, Result: h.Result, Files: []snap.FileRecord{},
			Deleted: []string{}, Diff: h.Diff, Kept: h.KeptDir != "", Written: h.Written, Log: h.Log, Output: string(output)}
		if rec := h.Record; rec != nil {
			doc.Base, doc.BaseRun, doc.Files, doc.Deleted = rec.Base, rec.BaseRun, rec.Files, recOrEmpty(rec.Deletes)
		}
		if doc.Written == nil {
			doc.Written = []overlay.UpperEntry{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}

	records.WriteHyp(w, h)
	res := h.Result
	fmt.Fprintf(w, "output (%s):\n", h.Log)
	if len(output) == 0 && res != nil && res.OutputBytes > 0 {
		// The command printed, the log holds nothing: the state dir
		// could not be written (the result's error says why).
		fmt.Fprintf(w, "(the log is empty although the command printed %d bytes: it could not be written, see the error above; its last lines:)\n", res.OutputBytes)
		io.WriteString(w, res.OutputTail)
	} else if len(output) == 0 {
		fmt.Fprintln(w, "(no output)")
	} else {
		w.Write(output)
		if !bytes.HasSuffix(output, []byte("\n")) {
			fmt.Fprintln(w)
		}
	}
	return nil
}

// warnUnverified says, first, that what follows comes from a report that
// is not the one the run wrote.
func warnUnverified(w io.Writer, ri *snap.RunInfo) { records.WriteWarning(w, ri.Unverified) }
