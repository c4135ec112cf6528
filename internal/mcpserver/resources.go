package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/records"
	"github.com/shadow-dev/shadow/snap"
)

// The resources a RunDoc links to (docs/agents.md, "Resources"): what a
// tool result leaves out to stay small, whole.
var resourceTemplates = []*mcp.ResourceTemplate{
	{Name: "report", URITemplate: "shadow://run/{run}/report", MIMEType: "application/json",
		Description: "a run's full report (shadow.report/v1, docs/report.md); while it runs, its live state"},
	{Name: "diff", URITemplate: "shadow://run/{run}/{hyp}/diff", MIMEType: "text/x-diff",
		Description: "a hypothesis's whole unified diff, from the verified records (what shadow_apply writes)"},
	{Name: "output", URITemplate: "shadow://run/{run}/{hyp}/output", MIMEType: "text/plain",
		Description: "a hypothesis's output: its last MiB, with the full log's path when that is cut"},
}

// maxResourceOutput bounds an output resource: the end of the log, where
// the full log's path is named.
const maxResourceOutput = 1 << 20

func (s *Server) addResources() {
	for _, t := range resourceTemplates {
		s.server.AddResourceTemplate(t, s.readResource)
	}
}

func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	parts := strings.Split(strings.TrimPrefix(uri, "shadow://run/"), "/")
	var runID, hyp, what string
	switch {
	case len(parts) == 2 && parts[1] == "report":
		runID, what = parts[0], "report"
	case len(parts) == 3 && (parts[2] == "diff" || parts[2] == "output"):
		runID, hyp, what = parts[0], parts[1], parts[2]
	default:
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if runID == "" || (what != "report" && hyp == "") {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	text := func(mime, t string) *mcp.ReadResourceResult {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: t}}}
	}
	if l := s.runs.get(runID); l != nil && what == "report" {
		if rep, _ := l.report(); rep == nil {
			b, _ := json.MarshalIndent(l.doc(), "", "  ")
			return text("application/json", string(b)), nil
		}
	}
	if rep := s.runs.getMerged(runID); rep != nil {
		return mergedResource(rep, uri, hyp, what, text)
	}
	ws := s.runs.workspace(runID)
	if ws == "" {
		var err error
		if ws, err = s.workspaceOf(""); err != nil {
			return nil, err
		}
	}
	store, err := snap.DefaultStore()
	if err != nil {
		return nil, err
	}
	r, _, err := records.Find(store, ws, runID)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", uri, cliToTools(err.Error()))
	}
	var warn strings.Builder
	records.WriteWarning(&warn, r.Unverified)
	switch what {
	case "report":
		if r.Report == nil {
			return nil, fmt.Errorf("%s: run %s is %s and has no report yet (shadow_show ref %q gives what it recorded)", uri, r.ID, r.State, r.ID)
		}
		b, _ := json.MarshalIndent(r.Report, "", "  ")
		res := text("application/json", string(b))
		if warn.Len() > 0 {
			res.Contents = append([]*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: warn.String()}}, res.Contents...)
		}
		return res, nil
	}
	h, err := records.ShowHyp(store, ws, r, hyp)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", uri, cliToTools(err.Error()))
	}
	if what == "diff" {
		return text("text/x-diff", warn.String()+h.Diff), nil
	}
	out, cut, err := snap.TailFile(h.Log, 1<<30, maxResourceOutput)
	switch {
	case err != nil && h.Result != nil:
		out = fmt.Sprintf("[the full log %s cannot be read (%v): the report's tail follows]\n%s", h.Log, err, h.Result.OutputTail)
	case err != nil:
		return nil, fmt.Errorf("%s: no output recorded: %v", uri, err)
	case cut:
		out = fmt.Sprintf("[… the output's last %d bytes; the whole log is %s]\n%s", maxResourceOutput, h.Log, out)
	}
	return text("text/plain", warn.String()+out), nil
}

// mergedResource serves a merged report the server holds (shadow_merge
// without apply records nothing): its diffs and tails are the shards'.
func mergedResource(rep *engine.Report, uri, hyp, what string, text func(string, string) *mcp.ReadResourceResult) (*mcp.ReadResourceResult, error) {
	if what == "report" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		return text("application/json", string(b)), nil
	}
	for _, h := range rep.Hypotheses {
		if h.Name != hyp {
			continue
		}
		if what == "diff" {
			return text("text/x-diff", h.Diff), nil
		}
		return text("text/plain", h.OutputTail), nil
	}
	return nil, mcp.ResourceNotFoundError(uri)
}
