package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/records"
	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/snap"
)

type mcpLogArgs struct {
	Cwd   string `json:"cwd,omitempty" jsonschema:"a directory of the workspace (default: the server's)"`
	Limit int    `json:"limit,omitempty" jsonschema:"only the newest N runs (default 20)"`
}

type mcpShowArgs struct {
	Ref   string `json:"ref" jsonschema:"RUN (a run id, prefix, or @last) or RUN/HYP"`
	Cwd   string `json:"cwd,omitempty" jsonschema:"a directory of the workspace (default: the server's)"`
	Lines int    `json:"lines,omitempty" jsonschema:"RUN/HYP: last lines of output to include (default 200)"`
}

// LogDoc is shadow_log's structured result (docs/agents.md, "shadow_log's
// result": the tool lists no output schema for it).
type LogDoc struct {
	Workspace string   `json:"workspace" jsonschema:"the checkout's path"`
	Total     int      `json:"total" jsonschema:"runs recorded"` // Runs holds the newest
	Runs      []LogRun `json:"runs" jsonschema:"the newest runs, oldest first"`
}

type LogRun struct {
	Run        string    `json:"run" jsonschema:"its id"`
	State      string    `json:"state" jsonschema:"running, finished or interrupted"`
	StartedAt  time.Time `json:"started_at" jsonschema:"RFC 3339"`
	Command    []string  `json:"command" jsonschema:"argument vector"`
	Subdir     string    `json:"subdir" jsonschema:"where it ran, in the workspace"`
	Mode       string    `json:"mode,omitempty" jsonschema:"sandbox mode"`
	DurationMS int64     `json:"duration_ms,omitempty" jsonschema:"milliseconds"`
	Winner     *string   `json:"winner" jsonschema:"the winner, or null"`
	Cancelled  bool      `json:"cancelled,omitempty" jsonschema:"interrupted"`
	Stale      bool      `json:"stale,omitempty" jsonschema:"the checkout changed meanwhile"`
	Hypotheses []LogHyp  `json:"hypotheses" jsonschema:"status and counts of each"`
}

type LogHyp struct {
	Name   string        `json:"name" jsonschema:"its name"`
	Status string        `json:"status" jsonschema:"its status"`
	Tests  *engine.Tests `json:"tests" jsonschema:"its test counts, or null"`
}

// mcpLogWindow bounds how much of a hypothesis's log shadow_show reads to
// find its last lines.
const mcpLogWindow = 4 << 20

// ShowHypDoc is shadow_show's structured result for RUN/HYP.
type ShowHypDoc struct {
	Run   string `json:"run"`
	State string `json:"state"`
	// Warning: the run's report (Result) does not match its integrity
	// record; absent when it does.
	Warning string         `json:"warning,omitempty"`
	Result  *engine.Result `json:"result"`
	// Diff is the hypothesis's diff from the verified records, whole:
	// what shadow apply would write (Result.Diff is the report's, capped).
	Diff   string `json:"diff"`
	Output string `json:"output"` // the last lines of the full output
	// OutputTrimmed: earlier lines are left out (the full log is Result.Log).
	OutputTrimmed bool `json:"output_trimmed"`
}

// logRunOf is a run's summary (records.Summarize) with its finished
// hypotheses' statuses and counts.
func logRunOf(r *snap.RunInfo) LogRun {
	e := records.Summarize(r)
	lr := LogRun{Run: e.Run, State: e.State, StartedAt: e.StartedAt, Command: e.Command, Subdir: e.Subdir,
		Mode: e.Mode, DurationMS: e.DurationMS, Winner: e.Winner, Cancelled: e.Cancelled, Stale: e.Stale, Hypotheses: []LogHyp{}}
	for _, h := range r.Results {
		lr.Hypotheses = append(lr.Hypotheses, LogHyp{Name: h.Name, Status: h.Status, Tests: h.Tests})
	}
	return lr
}

// workspaceOf resolves a tool's optional cwd to the workspace.
func (s *Server) workspaceOf(cwd string) (string, error) {
	switch {
	case cwd == "":
		cwd = s.cwd
	case !filepath.IsAbs(cwd):
		return "", fmt.Errorf("cwd: %q is relative: give an absolute directory (or none, for %s)", cwd, s.cwd)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("cwd: %s is not a directory", cwd)
	}
	ws, _, err := run.ResolveWorkspace("", cwd)
	if err != nil {
		return "", fmt.Errorf("cwd: %v", err)
	}
	return ws, nil
}

func (s *Server) toolLog(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in mcpLogArgs
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return toolError("%v", err), nil
	}
	if in.Limit < 0 {
		return toolError("limit: must be 0 (the default, 20) or more, got %d", in.Limit), nil
	}
	if in.Limit == 0 {
		in.Limit = 20
	}
	ws, store, err := s.recordsOf(in.Cwd)
	if err != nil {
		return toolError("%v", err), nil
	}
	ids, err := store.RunIDs(ws)
	if err != nil {
		return toolError("%v", err), nil
	}
	doc := LogDoc{Workspace: ws, Total: len(ids), Runs: []LogRun{}}
	first := max(len(ids)-in.Limit, 0)
	var b strings.Builder
	fmt.Fprintf(&b, "%d recorded run(s) of %s", len(ids), ws)
	if first > 0 {
		fmt.Fprintf(&b, ", the newest %d", len(ids)-first)
	}
	b.WriteString(" (oldest first):\n")
	for _, id := range ids[first:] {
		r := snap.ReadRun(store.RunDir(ws, id))
		lr := logRunOf(r)
		doc.Runs = append(doc.Runs, lr)
		fmt.Fprintf(&b, "%s  %-11s  %s", id, records.Summarize(r).StateWord(), records.Quote(lr.Command))
		if lr.Winner != nil {
			fmt.Fprintf(&b, "  winner %s", *lr.Winner)
		} else if r.State == snap.StateFinished {
			b.WriteString("  no winner")
		}
		var hs []string
		for _, h := range lr.Hypotheses {
			hs = append(hs, h.Name+" "+h.Status)
		}
		if len(hs) > 0 {
			fmt.Fprintf(&b, "  (%s)", strings.Join(hs, ", "))
		}
		b.WriteString("\n")
	}
	return toolResult(b.String(), doc), nil
}

func (s *Server) toolShow(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in mcpShowArgs
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return toolError("%v", err), nil
	}
	if in.Ref == "" {
		return toolError("ref: required: RUN or RUN/HYP, e.g. @last or @last/fix"), nil
	}
	if in.Lines < 0 {
		return toolError("lines: must be 0 (the default, 200) or more, got %d", in.Lines), nil
	}
	if in.Lines == 0 {
		in.Lines = 200
	}
	ws, store, err := s.recordsOf(in.Cwd)
	if err != nil {
		return toolError("%v", err), nil
	}
	isHyp := strings.Contains(in.Ref, "/")
	r, hyp, err := records.Find(store, ws, in.Ref)
	if err != nil {
		return toolError("ref: %s", cliToTools(err.Error())), nil
	}
	id := r.ID
	s.runs.noteWorkspace(id, ws)
	if !isHyp {
		// While it runs, its live state; once ended, the record (verified).
		if l := s.runs.get(id); l != nil {
			if rep, _ := l.report(); rep == nil {
				return runResult(l.doc(), nil), nil
			}
		}
		return showRun(r), nil
	}
	// What shadow show prints before the output, from the same verified
	// records (records.ShowHyp): the integrity warning first, and the
	// diff apply would write, not the report's capped one.
	h, err := records.ShowHyp(store, ws, r, hyp)
	if err != nil {
		return toolError("%s", cliToTools(err.Error())), nil
	}
	res := h.Result
	doc := ShowHypDoc{Run: id, State: r.State, Warning: h.Warning, Result: res, Diff: h.Diff}
	var b strings.Builder
	records.WriteHyp(&b, h)
	// The log is the record's own file, never the path the report names
	// (a report changed after the run could name any file).
	logPath, tail, size := h.Log, "", int64(0)
	if res != nil {
		tail, size = res.OutputTail, res.OutputBytes
	}
	out, cut, err := snap.TailFile(logPath, in.Lines, mcpLogWindow)
	switch {
	case err != nil:
		// the log is gone (pruned, or a --no-record run's temp dir): the tail
		// the report kept is what there is
		out, cut = tail, true
		fmt.Fprintf(&b, "\noutput (the full log %s cannot be read: %v; the report's tail):\n", logPath, err)
	case cut:
		fmt.Fprintf(&b, "\noutput, the last %d line(s) (the full log: %s, %d bytes):\n", in.Lines, logPath, size)
	default:
		fmt.Fprintf(&b, "\noutput (%s):\n", logPath)
	}
	doc.Output, doc.OutputTrimmed = out, cut
	if out == "" {
		b.WriteString("(no output)\n")
	}
	b.WriteString(out)
	return toolResult(b.String(), doc), nil
}

// showRun is a whole run: its report, or what a run without one recorded.
func showRun(r *snap.RunInfo) *mcp.CallToolResult {
	// A report that does not match the run's integrity record is shown
	// after the warning, as shadow show prints it (records.WriteWarning).
	var b strings.Builder
	records.WriteWarning(&b, r.Unverified)
	if r.Report != nil {
		d := briefOf(r.Report)
		if r.Unverified != "" {
			d.Summary = b.String() + d.Summary
		}
		return runResult(d, briefNames(d))
	}
	fmt.Fprintf(&b, "run %s is %s: no report", r.ID, r.State)
	if r.Meta != nil {
		fmt.Fprintf(&b, " (%s, started %s)", records.Quote(r.Meta.Command), r.Meta.StartedAt.Format(time.RFC3339))
	}
	d := &RunDoc{RunID: r.ID, State: r.State, Links: runLinks(r.ID), Hypotheses: []HypBrief{}}
	done := map[string]bool{}
	lines := []string{b.String()}
	for _, h := range r.Results {
		hb := briefHyp(h)
		d.Hypotheses = append(d.Hypotheses, hb)
		lines = append(lines, hypLine(hb, nil))
		done[h.Name] = true
	}
	if r.Meta != nil {
		for _, n := range r.Meta.Hypotheses {
			if !done[n] {
				d.Hypotheses = append(d.Hypotheses, HypBrief{Name: n, Status: "not finished"})
				lines = append(lines, n+": not finished")
			}
		}
	}
	d.Summary = strings.Join(lines, "\n")
	return runResult(d, briefNames(d))
}

// recordsOf is the workspace a tool call's cwd names and the store that
// holds its records.
func (s *Server) recordsOf(cwd string) (string, snap.Store, error) {
	ws, err := s.workspaceOf(cwd)
	if err != nil {
		return "", snap.Store{}, err
	}
	store, err := snap.DefaultStore()
	return ws, store, err
}

// cliToTools words a message for the agent: the records' refusals name
// the CLI's commands (`shadow log`), which an agent reaches as tools.
func cliToTools(msg string) string {
	return strings.NewReplacer("`shadow log`", "shadow_log", "`shadow show", "`shadow_show").Replace(msg)
}
