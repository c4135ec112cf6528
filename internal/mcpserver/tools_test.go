package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/engine"
)

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func structuredAs[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	var v T
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("structured content: %v\n%s", err, b)
	}
	return v
}

func TestToolsAreListedWithSchemas(t *testing.T) {
	cs := connect(t, New(t.TempDir(), "test", nil))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, tool := range res.Tools {
		got[tool.Name] = true
		if tool.InputSchema == nil || tool.Description == "" {
			t.Errorf("%s: no schema or description", tool.Name)
		}
	}
	for _, want := range []string{"shadow_run", "shadow_log", "shadow_show", "shadow_probe"} {
		if !got[want] {
			t.Errorf("tool %s missing: %v", want, got)
		}
	}
	// Every run option is in shadow_run's input schema.
	for _, tool := range res.Tools {
		if tool.Name != "shadow_run" {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		for _, f := range []string{"keep", "freeze", "confirm", "apply", "baseline", "mode", "net", "tmp", "timeout", "jobs", "cwd", "test_paths", "allow_test_edits", `"copy"`} {
			if !strings.Contains(string(b), f) {
				t.Errorf("shadow_run's input schema lacks %s", f)
			}
		}
	}
	if init := cs.InitializeResult(); init == nil || !strings.Contains(init.Instructions, `"patch"`) || !strings.Contains(init.Instructions, `"base"`) {
		t.Errorf("the instructions do not teach patch and base")
	}
}

// keep and freeze reach the run: in place they are refused as overlay-only.
func TestKeepAndFreezeReachThePlan(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	cs := connect(t, New(ws, "test", nil))
	for _, opt := range []string{"keep", "freeze"} {
		res := callTool(t, cs, "shadow_run", map[string]any{"hypotheses": []any{map[string]any{"name": "a"}}, "command": []string{"true"}, "mode": "inplace", opt: true})
		if !res.IsError || !strings.Contains(resultText(res), "--"+opt+" needs overlay mode") {
			t.Errorf("%s in place: %v %s", opt, res.IsError, resultText(res))
		}
	}
}

// Each tool in process, over the run service and the records: a run in
// place (it needs no namespaces), then the log, the run, one hypothesis,
// a reference that names nothing, and the probe.
func TestEachToolInProcess(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.WriteFile(filepath.Join(ws, "v.txt"), []byte("bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, New(ws, "test", nil))

	run := callTool(t, cs, "shadow_run", map[string]any{
		"hypotheses": []any{
			map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}},
			map[string]any{"name": "wrong", "edits": []any{map[string]any{"path": "v.txt", "content": "worse\n"}}},
		},
		"command": []string{"grep", "-q", "good", "v.txt"},
		"mode":    "inplace",
	})
	if run.IsError {
		t.Fatalf("shadow_run: %s", resultText(run))
	}
	checkOutputSchema(t, cs, "shadow_run", run)
	brief := structuredAs[RunDoc](t, run)
	if brief.Winner == nil || *brief.Winner != "fix" || brief.State != "finished" || !strings.HasPrefix(brief.Summary, "winner: fix") || !strings.Contains(resultText(run), "winner: fix") {
		t.Fatalf("shadow_run: %+v\n%s", brief, resultText(run))
	}
	// The full report is the resource the result links to.
	var rep engine.Report
	if err := json.Unmarshal([]byte(readResource(t, cs, brief.Links.Report)), &rep); err != nil || rep.Mode != "inplace" || rep.Run != brief.RunID || len(rep.Hypotheses) != 2 {
		t.Fatalf("the report resource: %v %+v", err, rep)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "v.txt")); string(b) != "bad\n" {
		t.Fatalf("the checkout changed: %q", b)
	}

	lg := callTool(t, cs, "shadow_log", map[string]any{})
	doc := structuredAs[LogDoc](t, lg)
	if lg.IsError || doc.Total != 1 || doc.Runs[0].Run != rep.Run || doc.Runs[0].Winner == nil || len(doc.Runs[0].Hypotheses) != 2 {
		t.Errorf("shadow_log: %+v\n%s", doc, resultText(lg))
	}

	sr := callTool(t, cs, "shadow_show", map[string]any{"ref": "@last"})
	if sr.IsError || !strings.Contains(resultText(sr), "winner: fix") {
		t.Errorf("shadow_show @last: %s", resultText(sr))
	}
	sh := callTool(t, cs, "shadow_show", map[string]any{"ref": rep.Run[:8] + "/wrong", "lines": 5})
	hd := structuredAs[ShowHypDoc](t, sh)
	if sh.IsError || hd.Result == nil || hd.Result.Name != "wrong" || !strings.Contains(resultText(sh), "+worse") {
		t.Errorf("shadow_show RUN/HYP: %+v\n%s", hd, resultText(sh))
	}
	for _, ref := range []string{"@last/nope", "zzzz", "@last/"} {
		if bad := callTool(t, cs, "shadow_show", map[string]any{"ref": ref}); !bad.IsError || !strings.Contains(resultText(bad), "ref:") {
			t.Errorf("shadow_show %q: %v %s", ref, bad.IsError, resultText(bad))
		}
	}

	pr := callTool(t, cs, "shadow_probe", map[string]any{})
	if pr.IsError || !strings.HasPrefix(resultText(pr), "mode: ") {
		t.Errorf("shadow_probe: %s", resultText(pr))
	}
}

func TestRunArgumentsRefusedNamingTheField(t *testing.T) {
	cwd := t.TempDir()
	for _, c := range []struct {
		args string
		want string
	}{
		{`{"hypotheses":[{"name":"a"}],"command":["true"],"mode":"fast"}`, `mode: "fast"`},
		{`{"hypotheses":[{"name":"a"}],"command":["true"],"mode":1}`, "mode: must be a string"},
		{`{"hypotheses":[{"name":"a"}],"command":["true"],"apply":"yes"}`, "apply: must be true or false"},
		{`{"hypotheses":[{"name":"a"}],"command":["true"],"cwd":"/nonexistent/x"}`, "cwd:"},
		{`{"hypotheses":[{"name":"a"}]}`, "command: required"},
		{`{"command":["true"]}`, "hypotheses: required"},
		{`{"hypotheses":[],"hypotheses":[],"command":["true"]}`, "hypotheses: given twice"},
		{`[]`, "arguments: must be an object"},
	} {
		if _, err := parseRunArgs(json.RawMessage(c.args), cwd); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.args, err, c.want)
		}
	}
	r, err := parseRunArgs(json.RawMessage(`{"hypotheses":[{"name":"a"}],"command":["true"],"mode":"overlay","baseline":true}`), cwd)
	if err != nil || r.mode != "overlay" || !r.baseline || r.cwd != cwd {
		t.Errorf("accepted arguments: %+v %v", r, err)
	}
}

// Things the agent must fix are tool errors that say so: a relative cwd,
// a command that is not there, a reference that names nothing (worded
// with the tools' names, not the CLI's).
func TestToolErrorsTheAgentMustFix(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	cs := connect(t, New(ws, "test", nil))
	ok := []any{map[string]any{"name": "a"}}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"shadow_run", map[string]any{"hypotheses": ok, "command": []string{"true"}, "cwd": "sub"}, `cwd: "sub" is relative`},
		{"shadow_log", map[string]any{"cwd": "sub"}, `cwd: "sub" is relative`},
		{"shadow_run", map[string]any{"hypotheses": ok, "command": []string{"pytestt-not-here"}, "mode": "inplace"}, `command not found: "pytestt-not-here"`},
		{"shadow_show", map[string]any{"ref": "nope"}, "ref:"},
	} {
		res := callTool(t, cs, c.tool, c.args)
		if !res.IsError || !strings.Contains(resultText(res), c.want) || strings.Contains(resultText(res), "`shadow log`") {
			t.Errorf("%s %v: %v %s", c.tool, c.args, res.IsError, resultText(res))
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(os.Getenv("XDG_STATE_HOME"), "shadow", "workspaces")); len(ents) != 0 {
		t.Errorf("refused calls recorded runs: %v", ents)
	}
}

// Twelve candidates of which eleven fail after printing 3,000 lines each:
// the whole result (text, structured content and resource links, as JSON)
// stays under 8,000 characters, and still holds the winner and its diff
// and each failing candidate's own first assertion; the rest is at the
// links, which resolve.
func TestRunResultIsSizedForAContextWindow(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.WriteFile(filepath.Join(ws, "v.txt"), []byte("bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `v=$(cat v.txt); if [ "$v" = good ]; then echo ok; exit 0; fi
echo "AssertionError: expected good, got $v"
i=0; while [ $i -lt 3000 ]; do echo "noise line $i of a chatty test runner, printed for every case it ran, passing or not"; i=$((i+1)); done
exit 1`
	hyps := []any{map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}}}
	for i := 0; i < 11; i++ {
		n := fmt.Sprintf("c%02d", i)
		hyps = append(hyps, map[string]any{"name": n, "edits": []any{map[string]any{"path": "v.txt", "content": "wrong-" + n + "\n"}}})
	}
	cs := connect(t, New(ws, "test", nil))
	res := callTool(t, cs, "shadow_run", map[string]any{"hypotheses": hyps, "command": []string{"sh", "-c", script}, "mode": "inplace"})
	if res.IsError {
		t.Fatal(resultText(res))
	}
	txt := resultText(res)
	doc, _ := json.Marshal(res.StructuredContent)
	whole, _ := json.Marshal(res)
	t.Logf("12 chatty candidates: the result is %d characters as JSON (text %d, structured content %d)", len(whole), len(txt), len(doc))
	if len(whole) > 8000 {
		t.Errorf("result is %d characters (text %d, structured %d), want under 8,000", len(whole), len(txt), len(doc))
	}
	checkOutputSchema(t, cs, "shadow_run", res)
	// The structured content alone (what Claude Code gives the model)
	// holds the summary, the winner, its diff and each failing
	// candidate's own first assertion.
	brief := structuredAs[RunDoc](t, res)
	if brief.Winner == nil || *brief.Winner != "fix" || !strings.HasPrefix(brief.Summary, "winner: fix") || !strings.Contains(brief.WinnerDiff, "+good") {
		t.Errorf("winner, summary or its diff missing:\n%s", doc)
	}
	for i := 0; i < 11; i++ {
		want := fmt.Sprintf("AssertionError: expected good, got wrong-c%02d", i)
		if !strings.Contains(brief.Summary, want) || brief.Hypotheses[i+1].Reason != want {
			t.Errorf("c%02d's own assertion is not in the structured content: %+v", i, brief.Hypotheses[i+1])
		}
	}
	// Nothing is lost: every link the result carries resolves, to the
	// whole output, the whole diff, the full report.
	links := 0
	for _, c := range res.Content {
		rl, ok := c.(*mcp.ResourceLink)
		if !ok {
			continue
		}
		links++
		body := readResource(t, cs, rl.URI)
		switch {
		case strings.HasSuffix(rl.URI, "/c03/output") && !strings.Contains(body, "noise line 2999 of") && !strings.Contains(body, "got wrong-c03"):
			t.Errorf("%s: not the whole output (%d bytes)", rl.URI, len(body))
		case strings.HasSuffix(rl.URI, "/fix/diff") && !strings.Contains(body, "+good"):
			t.Errorf("%s: %q", rl.URI, body)
		case strings.HasSuffix(rl.URI, "/report") && !strings.Contains(body, `"output_tail"`):
			t.Errorf("%s: not the report: %.200s", rl.URI, body)
		}
	}
	if links != 1+2*12 {
		t.Errorf("%d resource links, want the report's and a diff and an output per hypothesis", links)
	}
}

// readResource reads uri through the client, as an agent would.
func readResource(t *testing.T, cs *mcp.ClientSession, uri string) string {
	t.Helper()
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("resources/read %s: %v", uri, err)
	}
	var b strings.Builder
	for _, c := range rr.Contents {
		b.WriteString(c.Text)
	}
	return b.String()
}

func TestCutDiff(t *testing.T) {
	d := strings.Repeat("+a line of a large diff\n", 1000)
	got := cutDiff(d, 1000, "r/h")
	if len(got) > 1100 || !strings.Contains(got, "shadow_show r/h gives it whole") || !strings.HasSuffix(strings.SplitN(got, "[…", 2)[0], "\n") {
		t.Errorf("cut diff: %d bytes\n%s", len(got), got)
	}
	if cutDiff("small\n", 1000, "r/h") != "small\n" {
		t.Error("a small diff was cut")
	}
}

// checkOutputSchema validates a result's structured content against the
// output schema the server lists for the tool, as a client would.
func checkOutputSchema(t *testing.T, cs *mcp.ClientSession, tool string, res *mcp.CallToolResult) {
	t.Helper()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		if tl.Name != tool {
			continue
		}
		if tl.OutputSchema == nil {
			t.Fatalf("%s lists no output schema", tool)
		}
		var sc jsonschema.Schema
		b, _ := json.Marshal(tl.OutputSchema)
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatal(err)
		}
		rs, err := sc.Resolve(nil)
		if err != nil {
			t.Fatalf("%s's output schema: %v", tool, err)
		}
		var inst any
		b, _ = json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &inst)
		if err := rs.Validate(inst); err != nil {
			t.Errorf("%s's structured content does not match its output schema: %v", tool, err)
		}
		return
	}
	t.Fatalf("no tool %s", tool)
}
