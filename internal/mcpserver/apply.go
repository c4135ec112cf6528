package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

type mcpApplyArgs struct {
	Ref    string `json:"ref" jsonschema:"RUN/HYP, e.g. @last/fix"`
	Cwd    string `json:"cwd,omitempty" jsonschema:"a directory of the workspace (default: the server's)"`
	Force  bool   `json:"force,omitempty" jsonschema:"apply one that did not pass or cannot win"`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"check and say what would be written, writing nothing"`
}

// ApplyDoc is shadow_apply's structured result.
type ApplyDoc struct {
	Run string `json:"run" jsonschema:"the run id the reference resolved to"`
	Hyp string `json:"hyp" jsonschema:"the hypothesis applied"`
	// Applied: the checkout paths written or deleted, in order.
	Applied []string `json:"applied" jsonschema:"checkout paths written or deleted (dry_run: would be)"`
	DryRun  bool     `json:"dry_run,omitempty" jsonschema:"check and say what would be written, writing nothing"`
	Note    string   `json:"note,omitempty" jsonschema:"why nothing was written (it changes nothing, or the checkout holds it)"`
}

// toolApply is `shadow apply RUN/HYP` for agents: the same checks (the
// record verified, every target as the run found it, the refusal of a
// candidate that did not pass or does not count unless force), and a
// target changed while it writes stops it, naming what was written.
func (s *Server) toolApply(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in mcpApplyArgs
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return toolError("%v", err), nil
	}
	if in.Ref == "" || !strings.Contains(in.Ref, "/") {
		return toolError("ref: required: RUN/HYP, e.g. @last/fix (shadow_log lists the runs)"), nil
	}
	ws, store, err := s.recordsOf(in.Cwd)
	if err != nil {
		return toolError("%v", err), nil
	}
	runID, hyp, err := store.FindHyp(ws, in.Ref)
	if err != nil {
		return toolError("ref: %s", cliToTools(err.Error())), nil
	}
	doc := ApplyDoc{Run: runID, Hyp: hyp, Applied: []string{}, DryRun: in.DryRun}
	ref := runID + "/" + hyp
	if in.DryRun {
		return s.dryApply(store, ws, ref, in.Force, doc)
	}
	a, err := store.ApplyChecked(ws, runID, hyp, in.Force)
	if err != nil {
		return toolError("%s", applyErrText(ref, err)), nil
	}
	doc.Applied = append(doc.Applied, a.Files...)
	switch {
	case a.Baseline:
		doc.Note = ref + " changes nothing: nothing to apply"
	case a.Already:
		doc.Note = ref + " is already in the checkout: nothing to do"
	default:
		return toolResult(fmt.Sprintf("applied %s to %s: %s\n", ref, ws, strings.Join(a.Files, ", ")), doc), nil
	}
	return toolResult(doc.Note+"\n", doc), nil
}

func (s *Server) dryApply(store snap.Store, ws, ref string, force bool, doc ApplyDoc) (*mcp.CallToolResult, error) {
	if !force {
		if err := store.CheckRefusal(ws, doc.Run, doc.Hyp); err != nil {
			return toolError("%s", applyErrText(ref, err)), nil
		}
	}
	h, _, err := store.LoadHyp(ws, doc.Run, doc.Hyp)
	if err != nil {
		return toolError("%v", err), nil
	}
	if h.IsBaseline() {
		doc.Note = ref + " changes nothing: nothing to apply"
		return toolResult(doc.Note+"\n", doc), nil
	}
	orig, err := store.LoadOriginals(ws, doc.Run)
	if err != nil {
		return toolError("run %s has no record of the checkout at its start: %v", doc.Run, err), nil
	}
	if err := engine.CheckApplyWith(ws, h, orig, engine.ApplyOptions{Force: force}); err != nil {
		return toolError("%s", applyErrText(ref, err)), nil
	}
	var b strings.Builder
	for _, f := range h.Files {
		doc.Applied = append(doc.Applied, f.Path)
		fmt.Fprintf(&b, "would write %s (%d bytes, %s)\n", f.Path, len(f.Content), f.Mode.Perm())
	}
	for _, p := range h.Deletes {
		doc.Applied = append(doc.Applied, p)
		fmt.Fprintf(&b, "would delete %s\n", p)
	}
	return toolResult(b.String(), doc), nil
}

// applyErrText words an apply failure for the model: the CLI's --force is
// the tool's force: true.
func applyErrText(ref string, err error) string {
	var re *snap.RefusedError
	if errors.As(err, &re) {
		return strings.Replace(err.Error(), "--force applies it anyway", "force: true applies it anyway", 1)
	}
	var ke *engine.RiskyError
	if errors.As(err, &ke) {
		return ref + " " + strings.Replace(err.Error(), "apply with --force", "apply with force: true", 1)
	}
	var ce *engine.ConflictError
	var se *engine.StoppedError
	if errors.As(err, &ce) || errors.As(err, &se) {
		return ref + " " + err.Error()
	}
	return fmt.Sprintf("applying %s: %v", ref, err)
}
