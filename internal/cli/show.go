package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/shadow-dev/shadow/internal/records"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/spf13/cobra"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

func showCommand(s Streams) *cobra.Command {
	var dir string
	var asJSON, asPatch bool
	c := &cobra.Command{
		Use:   "show RUN[/HYP] [-C DIR] [--json|--patch]",
		Short: "one recorded run or hypothesis: result, diff, full output",
		Long: "shadow show RUN gives a recorded run's report; shadow show RUN/HYP one hypothesis's\n" +
			"status, files, diff, what the command wrote (with --keep) and full output.\n" +
			"RUN is a run id, a unique prefix of one, or @last. With --patch, RUN/HYP's changes\n" +
			"as a patch `git apply` accepts (from the verified record, as apply would write them).",
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
	d := recDiff(h, orig)
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

func showHypRecord(w io.Writer, store snap.Store, ws string, ri *snap.RunInfo, name string, asJSON bool) error {
	h, rec, herr := store.LoadHyp(ws, ri.ID, name)
	var recErr *snap.RecordError
	if errors.As(herr, &recErr) {
		// What show would print is not what the run recorded: say so,
		// print nothing of it (apply refuses it the same way).
		return envErr("%v", herr)
	}
	if !asJSON {
		warnUnverified(w, ri)
	}
	res := records.Result(ri, name)
	hypDir := filepath.Join(ri.Dir, "hyps", name)
	logPath := filepath.Join(hypDir, "output.log")
	output, _ := os.ReadFile(logPath)

	// The diff is made from the verified records, the very files and
	// originals `shadow apply` uses, not taken from the report: what show
	// prints is what apply would write.
	diff := ""
	if res != nil {
		diff = res.Diff
	}
	if herr == nil {
		orig, err := store.LoadOriginals(ws, ri.ID)
		if errors.As(err, &recErr) {
			return envErr("%v", err)
		}
		if err == nil {
			diff = recDiff(h, orig)
		}
	}
	var wrote []overlay.UpperEntry
	upper := filepath.Join(hypDir, "upper")
	kept := false
	if fi, err := os.Stat(upper); err == nil && fi.IsDir() {
		kept = true
		wrote = overlay.ListUpper(upper, h)
	}

	if asJSON {
		doc := struct {
			Schema   string               `json:"schema"`
			Run      string               `json:"run"`
			Hyp      string               `json:"hyp"`
			RunState string               `json:"run_state"`
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
		}{Schema: "shadow.hyp/v1", Run: ri.ID, Hyp: name, RunState: ri.State, Result: res, Files: []snap.FileRecord{},
			Deleted: []string{}, Diff: diff, Kept: kept, Written: wrote, Log: logPath, Output: string(output)}
		if rec != nil {
			doc.Base, doc.BaseRun, doc.Files, doc.Deleted = rec.Base, rec.BaseRun, rec.Files, recOrEmpty(rec.Deletes)
		}
		if doc.Written == nil {
			doc.Written = []overlay.UpperEntry{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}

	fmt.Fprintf(w, "run %s, hypothesis %s", ri.ID, name)
	if res != nil {
		fmt.Fprintf(w, ": %s", res.Status)
		if res.ExitCode != nil {
			fmt.Fprintf(w, " (exit %d)", *res.ExitCode)
		}
		fmt.Fprintf(w, " in %.1fs", float64(res.DurationMS)/1000)
		if t := res.Tests; t != nil {
			fmt.Fprintf(w, ", %d passed, %d failed", t.Passed, t.Failed)
		}
		fmt.Fprintf(w, ", ~%d changed line(s)", res.ChangedLines)
		if ri.Report != nil && ri.Report.Winner != nil && *ri.Report.Winner == name {
			fmt.Fprint(w, "  <- winner")
		}
		if res.Error != nil {
			fmt.Fprintf(w, "\nerror: %s", *res.Error)
		}
	} else {
		fmt.Fprintf(w, ": did not finish (run %s)", ri.State)
	}
	fmt.Fprintln(w)
	if rec != nil && rec.Base != "" {
		fmt.Fprintf(w, "base: %s", rec.Base)
		if rec.BaseRun != "" && rec.BaseRun != rec.Base {
			fmt.Fprintf(w, " (%s)", rec.BaseRun)
		}
		fmt.Fprintln(w)
	}
	if rec != nil {
		if len(rec.Files)+len(rec.Deletes) == 0 {
			fmt.Fprintln(w, "files: none (a baseline)")
		} else {
			fmt.Fprintln(w, "files:")
			for _, f := range rec.Files {
				fmt.Fprintf(w, "  %s  (%s, %d bytes)\n", f.Path, f.Mode, f.Size)
			}
			for _, d := range rec.Deletes {
				fmt.Fprintf(w, "  %s  (deleted)\n", d)
			}
		}
	}
	if diff != "" {
		fmt.Fprintln(w, "diff:")
		io.WriteString(w, diff)
	}
	if kept {
		fmt.Fprintf(w, "written by the command (kept in %s):\n", upper)
		if len(wrote) == 0 {
			fmt.Fprintln(w, "  nothing")
		}
		for _, e := range wrote {
			switch e.Kind {
			case "file":
				fmt.Fprintf(w, "  %s  (%d bytes)\n", e.Path, e.Size)
			default:
				fmt.Fprintf(w, "  %s  (%s)\n", e.Path, e.Kind)
			}
		}
	}
	fmt.Fprintf(w, "output (%s):\n", logPath)
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

// diffOf is the hypothesis's diff against the originals recorded at the
// run's start, for a run that ended before it reported one.
func recDiff(h engine.Hypothesis, orig map[string]engine.FileState) string {
	var b []byte
	for _, f := range h.Files {
		o := orig[f.Path]
		d, _ := engine.UnifiedDiff(f.Path, o.Content, o.Exists, f.Content, true)
		b = append(b, d...)
	}
	for _, p := range h.Deletes {
		if o := orig[p]; o.Exists && !o.Dir {
			d, _ := engine.UnifiedDiff(p, o.Content, true, nil, false)
			b = append(b, d...)
		}
	}
	return string(b)
}

// warnUnverified says, first, that what follows comes from a report that
// is not the one the run wrote.
func warnUnverified(w io.Writer, ri *snap.RunInfo) {
	if ri.Unverified != "" {
		fmt.Fprintf(w, "WARNING: %s\n\n", ri.Unverified)
	}
}
