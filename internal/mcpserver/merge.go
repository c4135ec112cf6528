package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/engine/judge"
	"github.com/shadow-dev/shadow/internal/run"
)

type mcpMergeArgs struct {
	Reports       []string         `json:"reports,omitempty" jsonschema:"the shards' report files (--json reports or --events streams)"`
	InlineReports []map[string]any `json:"inline_reports,omitempty" jsonschema:"the shards' shadow.report/v1 documents, inline"`
	Apply         bool             `json:"apply,omitempty" jsonschema:"write the winner into the checkout and record the merge (needs spec)"`
	Spec          string           `json:"spec,omitempty" jsonschema:"with apply: the spec file the shards ran (the winner's files)"`
	WithTests     bool             `json:"with_tests,omitempty" jsonschema:"with apply: write the winner's proposed tests too"`
	Force         bool             `json:"force,omitempty" jsonschema:"with apply: apply although HEAD moved since the shards' commit"`
	Cwd           string           `json:"cwd,omitempty" jsonschema:"a directory of the workspace (default: the server's)"`
}

// toolMerge is `shadow merge [--apply]` for agents: the shards' reports
// (files or inline) merged into one ranked report, and with apply the
// winner written and the merge recorded (run.ApplyMerge). A refusal (not
// one run's shards, a spec that is not the shards', an apply refused) is
// a tool error naming why.
func (s *Server) toolMerge(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in mcpMergeArgs
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return toolError("%v", err), nil
	}
	if len(in.Reports)+len(in.InlineReports) == 0 {
		return toolError("reports: give the shards' reports (file paths in reports, or the documents in inline_reports)"), nil
	}
	if !in.Apply && (in.Spec != "" || in.WithTests || in.Force) {
		return toolError("spec, with_tests and force go with apply: true"), nil
	}
	cwd := in.Cwd
	if cwd == "" {
		cwd = s.cwd
	} else if !filepath.IsAbs(cwd) {
		return toolError("cwd: %q is relative: give an absolute directory (or none, for %s)", cwd, s.cwd), nil
	}
	var reps []*engine.Report
	var names []string
	for _, p := range in.Reports {
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		f, err := os.Open(p)
		if err != nil {
			return toolError("reports: %v", err), nil
		}
		rep, err := judge.ReadShardReport(f)
		f.Close()
		if err != nil {
			return toolError("reports: %s: %v", p, err), nil
		}
		reps, names = append(reps, rep), append(names, p)
	}
	for i, doc := range in.InlineReports {
		b, _ := json.Marshal(doc)
		rep, err := judge.ReadShardReport(bytes.NewReader(b))
		name := fmt.Sprintf("inline_reports[%d]", i)
		if err != nil {
			return toolError("%s: %v", name, err), nil
		}
		reps, names = append(reps, rep), append(names, name)
	}
	merged, err := judge.MergeShards(reps, names)
	if err != nil {
		return toolError("%v", err), nil
	}
	if !in.Apply {
		// Not recorded: the server holds the merged report, so that its
		// links (shadow://run/ID/...) resolve.
		id := s.runs.addMerged(merged)
		d := briefOf(merged)
		d.RunID, d.Links = id, runLinks(id)
		return runResult(d, briefNames(d)), nil
	}
	if in.Spec == "" {
		return toolError("spec: required with apply: the spec file the shards ran (the winner's files come from it, never from a shard's report)"), nil
	}
	specPath := in.Spec
	if !filepath.IsAbs(specPath) {
		specPath = filepath.Join(cwd, specPath)
	}
	spec, specDir, err := engine.LoadSpec(specPath, nil)
	if err != nil {
		return toolError("spec: %v", err), nil
	}
	_, release := s.runContext(ctx)
	defer release()
	rep, err := run.ApplyMerge(merged, reps[0].Shard, run.MergeApply{Spec: spec, SpecDir: specDir, Cwd: cwd,
		WithTests: in.WithTests, Force: in.Force, Notices: s.notices})
	if err != nil {
		return toolError("%v", err), nil
	}
	if rep.ApplyError != "" {
		return toolError("not applied: %s (the merged report is recorded as run %s: shadow_show ref %q)", rep.ApplyError, rep.Run, rep.Run), nil
	}
	s.runs.noteWorkspace(rep.Run, rep.Workspace)
	d := briefOf(rep)
	return runResult(d, briefNames(d)), nil
}
