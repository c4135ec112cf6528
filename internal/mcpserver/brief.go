package mcpserver

import (
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/engine"
)

// RunDoc is the structured result of shadow_run, shadow_wait, shadow_merge
// and shadow_show RUN (docs/agents.md, "What a call returns"). Some
// clients hand the model the structured content alone (Claude Code drops
// the text when there is one), so it leads with its own summary and stays
// a few thousand characters for a dozen candidates; what it leaves out
// (the full report, whole diffs, outputs) is a resources/read away at the
// URIs in Links.
type RunDoc struct {
	// Summary: the winner or why there is none, then one line per
	// hypothesis (while running: what is done and what is going on).
	Summary    string     `json:"summary" jsonschema:"read first: the winner or why none, then a line per hypothesis"`
	RunID      string     `json:"run_id" jsonschema:"the run: for shadow_wait, shadow_show and the links"`
	State      string     `json:"state" jsonschema:"running, finished, cancelled or interrupted"`
	Winner     *string    `json:"winner" jsonschema:"the winning hypothesis, or null"`
	Hypotheses []HypBrief `json:"hypotheses" jsonschema:"best first"`
	// WinnerDiff is the winner's diff (cut past maxBriefDiff, the rest at
	// its diff link).
	WinnerDiff string   `json:"winner_diff,omitempty" jsonschema:"the winner's diff (cut if long: links.diff has it whole)"`
	Applied    []string `json:"applied,omitempty" jsonschema:"checkout paths apply wrote"`
	ApplyError string   `json:"apply_error,omitempty" jsonschema:"why apply wrote nothing"`
	Stale      bool     `json:"stale,omitempty" jsonschema:"the checkout changed during the run"`
	Error      string   `json:"error,omitempty" jsonschema:"why the run stopped"`
	DurationMS int64    `json:"duration_ms" jsonschema:"milliseconds so far or in all"`
	Links      Links    `json:"links" jsonschema:"resources/read URIs of the rest ({hyp}: a hypothesis's name)"`
}

// HypBrief is one hypothesis in a RunDoc, best first.
type HypBrief struct {
	Name         string      `json:"name" jsonschema:"its name"`
	Status       string      `json:"status" jsonschema:"queued, running, passed, failed, timed_out, error or cancelled"`
	Reason       string      `json:"reason,omitempty" jsonschema:"why it failed: its first error"`
	Tests        *BriefTests `json:"tests,omitempty" jsonschema:"test counts (so far, while it runs)"`
	Fixed        int         `json:"fixed,omitempty" jsonschema:"tests it fixes that the baseline fails"`
	Broken       int         `json:"broken,omitempty" jsonschema:"tests it breaks that the baseline passes"`
	ChangedLines int         `json:"changed_lines,omitempty" jsonschema:"lines its diff changes"`
	Disqualified string      `json:"disqualified,omitempty" jsonschema:"why its pass cannot win (it edits tests...)"`
	Suspicious   string      `json:"suspicious,omitempty" jsonschema:"why it looks like it games the judge"`
	Tampered     string      `json:"tampered,omitempty" jsonschema:"evidence its verdict was forged"`
	Error        string      `json:"error,omitempty" jsonschema:"why it could not run"`
	// Contrast: what it does that no other passing candidate does.
	Contrast string `json:"contrast,omitempty" jsonschema:"what no other pass does"`
}

// BriefTests are a hypothesis's test counts (so far, while it runs).
type BriefTests struct {
	Passed  int `json:"passed" jsonschema:"passed"`
	Failed  int `json:"failed" jsonschema:"failed"`
	Skipped int `json:"skipped,omitempty" jsonschema:"skipped"`
}

// Links are where the rest of a run is read (resources/read; the tools
// shadow_show RUN and RUN/HYP give the same).
type Links struct {
	Report string `json:"report" jsonschema:"the full report (JSON)"`
	Diff   string `json:"diff" jsonschema:"a hypothesis's whole diff"`
	Output string `json:"output" jsonschema:"a hypothesis's output"`
}

// Bounds of a RunDoc's strings.
const (
	maxBriefDiff   = 4 << 10 // the winner's diff
	maxBriefReason = 200     // a reason, a disqualification, an error
	maxBriefLine   = 240     // one line of the summary
)

func runLinks(id string) Links {
	base := "shadow://run/" + id
	return Links{Report: base + "/report", Diff: base + "/{hyp}/diff", Output: base + "/{hyp}/output"}
}

// briefOf is a finished (or cancelled) run's RunDoc.
func briefOf(rep *engine.Report) *RunDoc {
	d := &RunDoc{RunID: rep.Run, State: "finished", DurationMS: rep.DurationMS, Applied: rep.Applied,
		ApplyError: rep.ApplyError, Stale: rep.Stale, Error: rep.Error, Links: runLinks(rep.Run), Hypotheses: []HypBrief{}}
	if rep.Cancelled {
		d.State = "cancelled"
	} else {
		d.Winner = rep.Winner
	}
	var lines []string
	for _, h := range rep.Hypotheses {
		b := briefHyp(h)
		d.Hypotheses = append(d.Hypotheses, b)
		lines = append(lines, hypLine(b, d.Winner, testsFromFailed(h)))
		if d.Winner != nil && *d.Winner == h.Name {
			d.WinnerDiff = cutDiff(h.Diff, maxBriefDiff, rep.Run+"/"+h.Name)
		}
	}
	d.Summary = strings.Join(append([]string{headline(rep)}, lines...), "\n")
	return d
}

// headline is the summary's first line: the winner, or why there is none.
func headline(rep *engine.Report) string {
	switch {
	case rep.Cancelled:
		return fmt.Sprintf("no winner: the run was cancelled before every hypothesis finished (%s); what finished is below", countStatuses(rep.Hypotheses))
	case rep.Winner != nil:
		s := "winner: " + *rep.Winner
		for _, h := range rep.Hypotheses {
			if h.Name == *rep.Winner {
				s += " (" + briefCounts(h) + ")"
			}
		}
		if len(rep.Applied) > 0 {
			s += "; applied to the checkout"
		} else if rep.ApplyError != "" {
			s += "; not applied: " + clipText(rep.ApplyError, maxBriefReason)
		}
		return s
	}
	if s := engine.SameFailure(rep); s != "" {
		return clipText("no winner: "+s, maxBriefLine)
	}
	passed := 0
	for _, h := range rep.Hypotheses {
		if h.Status == engine.StatusPassed {
			passed++
		}
	}
	if passed > 0 {
		return fmt.Sprintf("no winner: %d of %d passed, but none may win (see why on each line)", passed, len(rep.Hypotheses))
	}
	if rep.Error != "" {
		return "no winner: the run stopped: " + clipText(rep.Error, maxBriefReason)
	}
	return fmt.Sprintf("no winner: none of the %d hypotheses passed", len(rep.Hypotheses))
}

func countStatuses(hs []*engine.Result) string {
	n := map[string]int{}
	var order []string
	for _, h := range hs {
		if n[h.Status] == 0 {
			order = append(order, h.Status)
		}
		n[h.Status]++
	}
	var parts []string
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
	}
	return strings.Join(parts, ", ")
}

// testsFromFailed is the summary's part for the tests from before the
// candidates a hypothesis fails (the report's tests_from has their names).
func testsFromFailed(h *engine.Result) string {
	if h.TestsFrom == nil || len(h.TestsFrom.Failed) == 0 {
		return ""
	}
	return fmt.Sprintf(", fails %d test(s) from tests_from", len(h.TestsFrom.Failed))
}

func briefHyp(h *engine.Result) HypBrief {
	b := HypBrief{Name: h.Name, Status: h.Status, Fixed: len(h.Fixed), Broken: len(h.Broken), ChangedLines: h.ChangedLines,
		Reason: clipPtr(h.Reason), Disqualified: clipPtr(h.Disqualified), Suspicious: clipPtr(h.Suspicious),
		Tampered: clipPtr(h.Tampered), Error: clipPtr(h.Error)}
	if h.Contrast != nil {
		b.Contrast = clipText(h.Contrast.Note, maxBriefReason)
	}
	if h.Tests != nil {
		b.Tests = &BriefTests{Passed: h.Tests.Passed, Failed: h.Tests.Failed, Skipped: h.Tests.Skipped}
	}
	return b
}

// hypLine is a hypothesis's line of the summary.
func hypLine(b HypBrief, winner *string, extra ...string) string {
	s := b.Name + ": " + b.Status
	if c := briefTestsText(b.Tests); c != "" {
		s += ", " + c
	}
	if b.Fixed > 0 {
		s += fmt.Sprintf(", fixes %d", b.Fixed)
	}
	if b.Broken > 0 {
		s += fmt.Sprintf(", breaks %d", b.Broken)
	}
	if b.ChangedLines > 0 {
		s += fmt.Sprintf(", %d changed line(s)", b.ChangedLines)
	}
	s += strings.Join(extra, "")
	if winner != nil && *winner == b.Name {
		s += " <- winner"
	}
	for _, why := range []struct{ k, v string }{{"disqualified", b.Disqualified}, {"suspicious", b.Suspicious}, {"tampered", b.Tampered}, {"contrast", b.Contrast}, {"error", b.Error}, {"reason", b.Reason}} {
		if why.v != "" {
			s += "; " + why.k + ": " + why.v
		}
	}
	return clipText(s, maxBriefLine)
}

func briefCounts(h *engine.Result) string {
	s := h.Status
	if h.Tests != nil {
		s += fmt.Sprintf(", %d passed, %d failed", h.Tests.Passed, h.Tests.Failed)
	}
	if h.ChangedLines > 0 {
		s += fmt.Sprintf(", %d changed line(s)", h.ChangedLines)
	}
	return s
}

func briefTestsText(t *BriefTests) string {
	if t == nil {
		return ""
	}
	s := fmt.Sprintf("%d passed, %d failed", t.Passed, t.Failed)
	if t.Skipped > 0 {
		s += fmt.Sprintf(", %d skipped", t.Skipped)
	}
	return s
}

func clipPtr(p *string) string {
	if p == nil {
		return ""
	}
	return clipText(*p, maxBriefReason)
}

// clipText is s on one line, cut past n runes.
func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// runResult is a RunDoc as a tool result: the summary (and the winner's
// diff) as text for clients that show the text, the document as the
// structured content, and resource links to the rest.
func runResult(d *RunDoc, hyps []string) *mcp.CallToolResult {
	var b strings.Builder
	b.WriteString(d.Summary)
	b.WriteString("\n")
	if d.WinnerDiff != "" {
		b.WriteString("\n" + d.WinnerDiff)
	}
	switch {
	case d.State == "running":
		fmt.Fprintf(&b, "\nRun %s is still running: call shadow_wait with run_id %q for its report (shadow_show ref %q gives its live state).\n", d.RunID, d.RunID, d.RunID)
	case d.RunID != "":
		fmt.Fprintf(&b, "\nRun %s: the full report is %s; each hypothesis's whole diff and output are %s and %s (or shadow_show ref \"%s/HYP\"). A later hypothesis can start from one with \"base\": \"%s/HYP\".\n",
			d.RunID, d.Links.Report, d.Links.Diff, d.Links.Output, d.RunID, d.RunID)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}, StructuredContent: d}
	if d.RunID == "" {
		return res
	}
	res.Content = append(res.Content, &mcp.ResourceLink{URI: d.Links.Report, Name: "report", MIMEType: "application/json"})
	for _, h := range hyps {
		base := "shadow://run/" + d.RunID + "/" + h
		res.Content = append(res.Content, &mcp.ResourceLink{URI: base + "/diff", Name: h + " diff"}, &mcp.ResourceLink{URI: base + "/output", Name: h + " output"})
	}
	return res
}

func briefNames(d *RunDoc) []string {
	var n []string
	for _, h := range d.Hypotheses {
		n = append(n, h.Name)
	}
	return n
}
