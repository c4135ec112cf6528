package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

// recordsFlags are the flags of log, show and apply.
type recordsFlags struct {
	dir  string
	json bool
	n    int
}

// openRecords parses the flags of a records command and finds the
// workspace and the store. It prints the refusal and returns a non-zero
// code on error.
func openRecords(name string, args []string, withJSON, withN bool) (pos []string, f recordsFlags, ws string, store snap.Store, code int) {
	fs := flag.NewFlagSet("shadow "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.dir, "C", "", "workspace root")
	if withJSON {
		fs.BoolVar(&f.json, "json", false, "JSON on stdout")
	}
	if withN {
		fs.IntVar(&f.n, "n", 0, "only the newest N runs")
	}
	pos, extra, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, f, "", store, usageErr("%s: %v", name, err)
	}
	if len(extra) > 0 {
		return nil, f, "", store, usageErr("%s takes no command", name)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, f, "", store, usageErr("current directory: %v", err)
	}
	ws, _, err = run.ResolveWorkspace(f.dir, cwd)
	if err != nil {
		return nil, f, "", store, usageErr("%v", err)
	}
	root, err := snap.DefaultRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "shadow:", err)
		return nil, f, "", store, exitEnv
	}
	return pos, f, ws, snap.Store{Root: root}, 0
}

// refErr prints a failure to find a record: exit 2 when the reference
// names nothing, 3 when the store cannot be read.
func recRefErr(err error) int {
	var re *snap.RefError
	if errors.As(err, &re) {
		return usageErr("%v", err)
	}
	fmt.Fprintln(os.Stderr, "shadow:", err)
	return exitEnv
}

// logEntry is one run in `shadow log --json` (schema shadow.log/v1).
type logEntry struct {
	Run        string         `json:"run"`
	StartedAt  time.Time      `json:"started_at"`
	Command    []string       `json:"command"`
	Subdir     string         `json:"subdir"`
	Mode       string         `json:"mode,omitempty"`
	State      string         `json:"state"` // finished, running, interrupted
	Cancelled  bool           `json:"cancelled"`
	Hypotheses []string       `json:"hypotheses"`
	Winner     *string        `json:"winner"`
	Statuses   map[string]int `json:"statuses"` // hypotheses by status; unfinished ones are absent
	Stale      bool           `json:"stale"`
	StalePaths []string       `json:"stale_paths"`
	Frozen     bool           `json:"frozen"`
	DurationMS int64          `json:"duration_ms"`
}

func recEntry(ri *snap.RunInfo) logEntry {
	e := logEntry{Run: ri.ID, StartedAt: ri.StartedAt(), State: ri.State, Hypotheses: ri.Hyps,
		Statuses: map[string]int{}, StalePaths: []string{}, Command: []string{}}
	if e.Hypotheses == nil {
		e.Hypotheses = []string{}
	}
	if m := ri.Meta; m != nil {
		e.Command, e.Subdir, e.Frozen = m.Command, m.Subdir, m.Freeze
	}
	if r := ri.Report; r != nil {
		e.Mode, e.Cancelled, e.Winner, e.Stale, e.DurationMS, e.Frozen = r.Mode, r.Cancelled, r.Winner, r.Stale, r.DurationMS, r.Frozen || e.Frozen
		if r.StalePaths != nil {
			e.StalePaths = r.StalePaths
		}
	}
	for _, res := range ri.Results {
		e.Statuses[res.Status]++
	}
	return e
}

func cmdLog(args []string) int {
	pos, f, ws, store, code := openRecords("log", args, true, true)
	if code != 0 {
		return code
	}
	if len(pos) > 0 {
		return usageErr("log takes no arguments (got %q); see `shadow show RUN`", pos)
	}
	runs, err := store.Runs(ws)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shadow:", err)
		return exitEnv
	}
	if f.n > 0 && len(runs) > f.n {
		runs = runs[len(runs)-f.n:]
	}
	entries := make([]logEntry, 0, len(runs))
	for _, ri := range runs {
		entries = append(entries, recEntry(ri))
	}
	if f.json {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			Schema    string     `json:"schema"`
			Workspace string     `json:"workspace"`
			Runs      []logEntry `json:"runs"`
		}{"shadow.log/v1", ws, entries})
		return 0
	}
	if len(entries) == 0 {
		fmt.Printf("no recorded runs for %s\n", ws)
		return 0
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTARTED\tHYPS\tWINNER\tRESULT\tSTATE\tCOMMAND")
	for _, e := range entries {
		winner := "-"
		if e.Winner != nil {
			winner = *e.Winner
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", e.Run, e.StartedAt.Local().Format("2006-01-02 15:04:05"),
			len(e.Hypotheses), winner, resultCell(e), stateCell(e), recOneLine(logQuote(e.Command), 60))
	}
	tw.Flush()
	return 0
}

// resultCell: "2 passed, 1 failed", with what did not finish.
func resultCell(e logEntry) string {
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

func stateCell(e logEntry) string {
	s := e.State
	if s == snap.StateFinished {
		s = "done"
	}
	if e.Cancelled {
		s = "cancelled"
	}
	if e.Stale {
		s += ", stale"
	}
	if e.Frozen {
		s += ", frozen"
	}
	return s
}

func logQuote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`;&|<>()*?[]{}!#~") {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

func recOneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// gcRuns prunes run records by snap.DefaultPolicy (runs older than 30
// days, and all but the newest 200 of each workspace; never a running
// one), the recorded files no record names any more, and the --freeze
// copies of runs whose process is gone. `shadow gc` calls it.
func gcRuns(store snap.Store) bool {
	res, err := store.Prune(snap.DefaultPolicy, time.Now())
	for _, r := range res.Runs {
		fmt.Printf("removed run record %s\n", r)
	}
	if res.Objects > 0 {
		fmt.Printf("removed %d recorded file(s) no run uses (%d bytes)\n", res.Objects, res.Bytes)
	}
	for _, base := range []string{store.SandboxDir(), overlay.TmpSandboxes()} {
		if n := snap.CleanFrozen(base); n > 0 {
			fmt.Printf("removed %d --freeze copy(ies) of ended runs in %s\n", n, base)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "shadow gc: prune run records:", err)
		return false
	}
	return true
}
