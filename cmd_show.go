package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// cmdShow: `shadow show RUN[/HYP] [-C DIR] [--json]`.
func cmdShow(args []string) int {
	pos, f, ws, store, code := openRecords("show", args, true, false)
	if code != 0 {
		return code
	}
	if len(pos) != 1 {
		return usageErr("show: want one RUN or RUN/HYP (RUN: a run id, a unique prefix of one, or @last)")
	}
	if !strings.Contains(pos[0], "/") {
		id, err := store.FindRun(ws, pos[0])
		if err != nil {
			return recRefErr(err)
		}
		return showRunRecord(os.Stdout, snap.ReadRun(store.RunDir(ws, id)), f.json)
	}
	runRef, _, _ := strings.Cut(pos[0], "/")
	run, hyp, err := store.FindHyp(ws, pos[0])
	if err != nil {
		// A run recorded before its hypotheses' files were: still show
		// what it has.
		if id, rerr := store.FindRun(ws, runRef); rerr == nil && runRef != "@last" {
			ri := snap.ReadRun(store.RunDir(ws, id))
			_, name, _ := strings.Cut(pos[0], "/")
			if recResult(ri, name) != nil {
				return showHypRecord(os.Stdout, store, ws, ri, name, f.json)
			}
		}
		return recRefErr(err)
	}
	return showHypRecord(os.Stdout, store, ws, snap.ReadRun(store.RunDir(ws, run)), hyp, f.json)
}

func recResult(ri *snap.RunInfo, name string) *engine.Result {
	for _, r := range ri.Results {
		if r.Name == name {
			return r
		}
	}
	return nil
}

func showRunRecord(w io.Writer, ri *snap.RunInfo, asJSON bool) int {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			Schema     string           `json:"schema"`
			Run        string           `json:"run"`
			State      string           `json:"state"`
			Dir        string           `json:"dir"`
			Meta       *snap.Meta       `json:"meta"`
			Hypotheses []string         `json:"hypotheses"`
			Results    []*engine.Result `json:"results"`
			Report     *engine.Report   `json:"report"`
		}{"shadow.run/v1", ri.ID, ri.State, ri.Dir, ri.Meta, recOrEmpty(ri.Hyps), ri.Results, ri.Report})
		return 0
	}
	e := recEntry(ri)
	fmt.Fprintf(w, "run %s  %s  started %s\n", ri.ID, stateCell(e), e.StartedAt.Local().Format("2006-01-02 15:04:05"))
	if ri.Report != nil {
		engine.WriteText(w, ri.Report)
	} else {
		if ri.Meta != nil {
			fmt.Fprintf(w, "$ %s   (%d hypothesis(es), on %s)\n", logQuote(ri.Meta.Command), len(ri.Hyps), ri.Meta.Workspace)
		}
		switch ri.State {
		case snap.StateInterrupted:
			fmt.Fprintln(w, "interrupted: the recording process ended before the run finished (killed, crashed or rebooted)")
		case snap.StateRunning:
			fmt.Fprintln(w, "running: follow it with `shadow watch`")
		}
		for _, name := range ri.Hyps {
			if r := recResult(ri, name); r != nil {
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
	return 0
}

func recOrEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// upperEntry is one entry of a kept upper dir: what the command wrote.
type upperEntry struct {
	Path    string `json:"path"`
	Kind    string `json:"kind"` // file, symlink, dir, deleted
	Size    int64  `json:"size,omitempty"`
	Changed bool   `json:"-"`
}

func showHypRecord(w io.Writer, store snap.Store, ws string, ri *snap.RunInfo, name string, asJSON bool) int {
	h, rec, herr := store.LoadHyp(ws, ri.ID, name)
	var recErr *snap.RecordError
	if errors.As(herr, &recErr) {
		// What show would print is not what the run recorded: say so,
		// print nothing of it (apply refuses it the same way).
		fmt.Fprintln(os.Stderr, "shadow:", herr)
		return exitEnv
	}
	res := recResult(ri, name)
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
			fmt.Fprintln(os.Stderr, "shadow:", err)
			return exitEnv
		}
		if err == nil {
			diff = recDiff(h, orig)
		}
	}
	var wrote []upperEntry
	upper := filepath.Join(hypDir, "upper")
	kept := false
	if fi, err := os.Stat(upper); err == nil && fi.IsDir() {
		kept = true
		wrote = listUpper(upper, h)
	}

	if asJSON {
		doc := struct {
			Schema   string            `json:"schema"`
			Run      string            `json:"run"`
			Hyp      string            `json:"hyp"`
			RunState string            `json:"run_state"`
			Base     string            `json:"base,omitempty"`
			BaseRun  string            `json:"base_run,omitempty"`
			Result   *engine.Result    `json:"result"`
			Files    []snap.FileRecord `json:"files"`
			Deleted  []string          `json:"deleted"`
			Diff     string            `json:"diff"`
			Kept     bool              `json:"kept"`
			Written  []upperEntry      `json:"written"`
			Log      string            `json:"log"`
			Output   string            `json:"output"`
		}{Schema: "shadow.hyp/v1", Run: ri.ID, Hyp: name, RunState: ri.State, Result: res, Files: []snap.FileRecord{},
			Deleted: []string{}, Diff: diff, Kept: kept, Written: wrote, Log: logPath, Output: string(output)}
		if rec != nil {
			doc.Base, doc.BaseRun, doc.Files, doc.Deleted = rec.Base, rec.BaseRun, rec.Files, recOrEmpty(rec.Deletes)
		}
		if doc.Written == nil {
			doc.Written = []upperEntry{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(doc)
		return 0
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
	return 0
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

// listUpper lists what a kept upper dir holds beyond the hypothesis's own
// files as they were upperEntry: what the command created, changed or
// deleted (overlayfs whiteouts are 0/0 character devices). Directories
// are listed only when empty.
func listUpper(upper string, h engine.Hypothesis) []upperEntry {
	own := map[string][]byte{}
	for _, f := range h.Files {
		own[f.Path] = f.Content
	}
	deleted := map[string]bool{}
	for _, d := range h.Deletes {
		deleted[d] = true
	}
	var out []upperEntry
	_ = filepath.WalkDir(upper, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == upper {
			return nil
		}
		rel, _ := filepath.Rel(upper, p)
		rel = filepath.ToSlash(rel)
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		switch {
		case fi.Mode()&fs.ModeCharDevice != 0:
			if isWhiteout(fi) && !deleted[rel] {
				out = append(out, upperEntry{Path: rel, Kind: "deleted"})
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			out = append(out, upperEntry{Path: rel, Kind: "symlink"})
		case fi.IsDir():
			if ents, err := os.ReadDir(p); err == nil && len(ents) == 0 {
				out = append(out, upperEntry{Path: rel, Kind: "dir"})
			}
		case fi.Mode().IsRegular():
			if c, ok := own[rel]; ok {
				if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, c) {
					return nil
				}
			}
			out = append(out, upperEntry{Path: rel, Kind: "file", Size: fi.Size()})
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
