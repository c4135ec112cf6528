package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/internal/records"
	"github.com/shadow-dev/shadow/snap"
)

type mcpWaitArgs struct {
	RunID    string `json:"run_id" jsonschema:"the run_id shadow_run returned (or a recorded run's id, @last)"`
	TimeoutS int    `json:"timeout_s,omitempty" jsonschema:"seconds to wait before returning state running (default 45, max 600; keep under the client's tool timeout)"`
	Cancel   bool   `json:"cancel,omitempty" jsonschema:"end the run now; its partial report stays readable"`
	Cwd      string `json:"cwd,omitempty" jsonschema:"for a run another process started: a directory of its workspace"`
}

const (
	defaultWaitS = 45
	maxWaitS     = 600
	// pollEvery: how often a run another process records is read again.
	pollEvery = 2 * time.Second
)

// toolWait is shadow_wait: the report of a run started with "wait":
// false once it ends, or its live state ("running") when timeout_s passes
// first, with progress all the while. Cancelling the call (or cancel:
// true) ends the run; its partial report is recorded.
func (s *Server) toolWait(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in mcpWaitArgs
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return toolError("%v", err), nil
	}
	if in.RunID == "" {
		return toolError("run_id: required: the run_id shadow_run returned"), nil
	}
	if in.TimeoutS < 0 || in.TimeoutS > maxWaitS {
		return toolError("timeout_s: must be between 1 and %d (0: the default, %d), got %d", maxWaitS, defaultWaitS, in.TimeoutS), nil
	}
	if in.TimeoutS == 0 {
		in.TimeoutS = defaultWaitS
	}
	until := time.Now().Add(time.Duration(in.TimeoutS) * time.Second)
	if l := s.runs.get(in.RunID); l != nil {
		if in.Cancel {
			l.cancel()
			until = time.Now().Add(30 * time.Second)
		}
		return s.waitResult(ctx, req, l, until)
	}
	// A run this server did not start (or no longer holds): its record.
	ws, store, err := s.recordsOf(in.Cwd)
	if err != nil {
		return toolError("%v", err), nil
	}
	if ows := s.runs.workspace(in.RunID); ows != "" && in.Cwd == "" {
		ws = ows
	}
	token := req.Params.GetProgressToken()
	var p progressValue
	for {
		r, _, err := records.Find(store, ws, in.RunID)
		if err != nil {
			return toolError("run_id: %s", cliToTools(err.Error())), nil
		}
		s.runs.noteWorkspace(r.ID, ws)
		if r.Report != nil || r.State != snap.StateRunning {
			return showRun(r), nil
		}
		if in.Cancel {
			return toolError("run %s was not started by this server (it is recorded as running by process %d): end it where it runs", r.ID, metaPID(r)), nil
		}
		if token != nil && req.Session != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: p.next(len(r.Results)),
				Message: fmt.Sprintf("%d hypotheses finished; the run is recorded as running by another shadow process", len(r.Results))})
		}
		if time.Now().After(until) {
			return showRun(r), nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(pollEvery, time.Until(until)+time.Millisecond)):
		}
	}
}

func metaPID(r *snap.RunInfo) int {
	if r.Meta == nil {
		return 0
	}
	return r.Meta.PID
}
