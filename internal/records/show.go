package records

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

// Hyp is one recorded hypothesis as every front end shows it (`shadow
// show RUN/HYP`, MCP's shadow_show, the TUI's recorded runs): built once
// by ShowHyp, from verified records only.
type Hyp struct {
	Run      string
	Name     string
	RunState string // snap.StateFinished, StateRunning, StateInterrupted
	// Warning is why the run's report cannot be trusted (it does not match
	// the run's integrity record: changed after the run sealed it); ""
	// when it can. The result below comes from that report, so every
	// front end prints the warning before anything else.
	Warning string
	// Winner: the report names this hypothesis the winner.
	Winner bool
	// Result is the hypothesis's result as the report (or, for a run
	// without one, its event log) holds it; nil when it did not finish.
	Result *engine.Result
	// Record is its verified files record (nil when the run ended before
	// its files were recorded); Base and BaseRun, Files and Deletes are
	// there.
	Record *snap.HypRecord
	// Diff is made from the verified records, the very files and
	// originals `shadow apply` uses, not taken from the report (which is
	// capped, and is what a tampered record would change): what a front
	// end shows is what apply would write. Only a run whose files were not
	// recorded falls back to the report's diff.
	Diff string
	// KeptDir is what the command wrote, kept with --keep ("" without);
	// Written lists it beyond the hypothesis's own files.
	KeptDir string
	Written []overlay.UpperEntry
	// Log is the full output's file in the record.
	Log string
}

// ShowHyp reads the recorded hypothesis name of run ri. A files or
// originals record that does not match the run's integrity record is
// refused (a *snap.RecordError, as `shadow apply` refuses it): nothing of
// it is shown. A report that does not match is shown with Warning set.
func ShowHyp(store snap.Store, ws string, ri *snap.RunInfo, name string) (*Hyp, error) {
	h := &Hyp{Run: ri.ID, Name: name, RunState: ri.State, Warning: ri.Unverified, Result: Result(ri, name)}
	h.Winner = ri.Report != nil && ri.Report.Winner != nil && *ri.Report.Winner == name
	hypDir := filepath.Join(ri.Dir, "hyps", name)
	h.Log = filepath.Join(hypDir, "output.log")

	files, rec, herr := store.LoadHyp(ws, ri.ID, name)
	var recErr *snap.RecordError
	if errors.As(herr, &recErr) {
		return nil, herr
	}
	if herr == nil {
		h.Record = rec
		orig, err := store.LoadOriginals(ws, ri.ID)
		if errors.As(err, &recErr) {
			return nil, err
		}
		if err == nil {
			h.Diff = RecordDiff(files, orig)
		}
	}
	if h.Record == nil && h.Result != nil {
		h.Diff = h.Result.Diff
	}
	upper := filepath.Join(hypDir, "upper")
	if fi, err := os.Stat(upper); err == nil && fi.IsDir() {
		h.KeptDir = upper
		h.Written = overlay.ListUpper(upper, files)
	}
	return h, nil
}

// RecordDiff is a recorded hypothesis's diff against the originals
// recorded at its run's start: what `shadow apply` would write.
func RecordDiff(h engine.Hypothesis, orig map[string]engine.FileState) string {
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

// WriteWarning writes, first, that what follows comes from a report that
// is not the one the run wrote (the run's report does not match its
// integrity record): every front end says it before a recorded run or
// hypothesis, in the same words.
func WriteWarning(w io.Writer, warning string) {
	if warning != "" {
		fmt.Fprintf(w, "WARNING: %s\n\n", warning)
	}
}

// WriteHyp writes what every front end shows of a recorded hypothesis
// before its output (each front end then shows the output its own way:
// the CLI all of it, shadow_show the last lines): the integrity warning
// first, the result and its verdict, the base, the files, the diff, and
// what the command wrote when it was kept.
func WriteHyp(w io.Writer, h *Hyp) {
	WriteWarning(w, h.Warning)
	fmt.Fprintf(w, "run %s, hypothesis %s", h.Run, h.Name)
	if res := h.Result; res != nil {
		fmt.Fprintf(w, ": %s", res.Status)
		if res.ExitCode != nil {
			fmt.Fprintf(w, " (exit %d)", *res.ExitCode)
		}
		fmt.Fprintf(w, " in %.1fs", float64(res.DurationMS)/1000)
		if t := res.Tests; t != nil {
			fmt.Fprintf(w, ", %d passed, %d failed", t.Passed, t.Failed)
		}
		fmt.Fprintf(w, ", ~%d changed line(s)", res.ChangedLines)
		if h.Winner {
			fmt.Fprint(w, "  <- winner")
		}
		fmt.Fprintln(w)
		for _, l := range []struct {
			label string
			v     *string
		}{{"error", res.Error}, {"reason", res.Reason}, {"disqualified", res.Disqualified}, {"suspicious", res.Suspicious}, {"tampered", res.Tampered}} {
			if l.v != nil {
				fmt.Fprintf(w, "%s: %s\n", l.label, *l.v)
			}
		}
		if res.Runs > 1 {
			fmt.Fprintf(w, "passed %d of %d runs\n", res.Passes, res.Runs)
		}
		if len(res.Fixed) > 0 {
			fmt.Fprintf(w, "fixes: %s\n", strings.Join(res.Fixed, ", "))
		}
		if len(res.Broken) > 0 {
			fmt.Fprintf(w, "breaks: %s\n", strings.Join(res.Broken, ", "))
		}
	} else {
		fmt.Fprintf(w, ": did not finish (run %s)\n", h.RunState)
	}
	if rec := h.Record; rec != nil {
		if rec.Base != "" {
			fmt.Fprintf(w, "base: %s", rec.Base)
			if rec.BaseRun != "" && rec.BaseRun != rec.Base {
				fmt.Fprintf(w, " (%s)", rec.BaseRun)
			}
			fmt.Fprintln(w)
		}
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
	if h.Diff != "" {
		fmt.Fprintln(w, "diff:")
		io.WriteString(w, h.Diff)
		if !strings.HasSuffix(h.Diff, "\n") {
			fmt.Fprintln(w)
		}
	}
	if h.KeptDir != "" {
		fmt.Fprintf(w, "written by the command (kept in %s):\n", h.KeptDir)
		if len(h.Written) == 0 {
			fmt.Fprintln(w, "  nothing")
		}
		for _, e := range h.Written {
			switch e.Kind {
			case "file":
				fmt.Fprintf(w, "  %s  (%d bytes)\n", e.Path, e.Size)
			default:
				fmt.Fprintf(w, "  %s  (%s)\n", e.Path, e.Kind)
			}
		}
	}
}
