//go:build linux

package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/mcpserver"
	"github.com/shadow-dev/shadow/test/e2e"
)

func TestMCPToolsAndPortableSchemas(t *testing.T) {
	m := e2e.NewMCPEnv(t, e2e.NewPlainEnv(t), "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lt, err := m.Cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" {
			t.Errorf("%s: no description", tool.Name)
		}
		b, _ := json.Marshal(tool.InputSchema)
		var sc map[string]any
		if err := json.Unmarshal(b, &sc); err != nil || sc["type"] != "object" {
			t.Errorf("%s: input schema is not an object schema: %s", tool.Name, b)
			continue
		}
		checkPortable(t, tool.Name, sc, false)
	}
	want := "shadow_apply shadow_log shadow_merge shadow_probe shadow_run shadow_show shadow_wait"
	if got := strings.Join(sortedCopy(names), " "); got != want {
		t.Errorf("tools: %s, want %s", got, want)
	}
	// shadow_run's schema names the spec's fields.
	for _, tool := range lt.Tools {
		if tool.Name != "shadow_run" {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		for _, f := range []string{`"hypotheses"`, `"command"`, `"cwd"`, `"content_base64"`, `"delete"`, `"patch"`, `"base"`, `"timeout"`, `"jobs"`, `"apply"`, `"mode"`} {
			if !strings.Contains(string(b), f) {
				t.Errorf("shadow_run schema lacks %s", f)
			}
		}
		// hypotheses may come from patches, refs or worktrees instead.
		if !strings.Contains(string(b), `"required":["command"]`) {
			t.Errorf("shadow_run schema: command not required: %s", b)
		}
	}
}

// checkPortable walks a schema: no keyword that some clients refuse, a
// single type per schema, and every property described.
func checkPortable(t *testing.T, where string, sc map[string]any, described bool) {
	for _, k := range []string{"$ref", "$defs", "definitions", "oneOf", "anyOf", "allOf", "not", "patternProperties", "if", "then", "else", "$schema", "$id", "$anchor", "$dynamicRef"} {
		if _, ok := sc[k]; ok {
			t.Errorf("%s: schema uses %q", where, k)
		}
	}
	if _, ok := sc["type"].(string); !ok {
		t.Errorf("%s: type is %v, want one type name", where, sc["type"])
	}
	if described {
		if d, _ := sc["description"].(string); d == "" {
			t.Errorf("%s: not described", where)
		}
	}
	if props, ok := sc["properties"].(map[string]any); ok {
		for name, p := range props {
			checkPortable(t, where+"."+name, p.(map[string]any), true)
		}
	}
	if items, ok := sc["items"].(map[string]any); ok {
		checkPortable(t, where+"[]", items, false)
	}
	if ap, ok := sc["additionalProperties"].(map[string]any); ok {
		checkPortable(t, where+"{}", ap, false)
	}
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			if c[j] < c[i] {
				c[i], c[j] = c[j], c[i]
			}
		}
	}
	return c
}

func hyp(name, content string) map[string]any {
	return map[string]any{"name": name, "edits": []any{map[string]any{"path": "v.txt", "content": content}}}
}

func TestMCPRunRanksReportsAndLeavesWorkspace(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("v.txt", "bad\n", 0o644)
	e.Write("sub/keep.txt", "keep\n", 0o600)
	// A git checkout: the server's cwd (sub) is inside the workspace.
	if out, err := exec.Command("git", "init", "-q", e.WS).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	before := e2e.Tree(t, e.WS)
	// The server runs in the workspace's subdirectory: no cwd argument.
	m := e2e.NewMCPEnv(t, e, filepath.Join(e.WS, "sub"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := m.Call(ctx, "shadow_run", map[string]any{
		"hypotheses": []any{map[string]any{"name": "baseline"}, hyp("fix", "good\n"), hyp("wrong", "worse\n")},
		"command":    []string{"sh", "-c", "cd .. && " + e2e.CheckScript},
		"jobs":       3,
	}, "tok-1")
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("tool error: %s", e2e.Text(res))
	}
	brief := e2e.Structured[mcpserver.RunDoc](t, res)
	r := m.Report(brief)
	if r.Schema != engine.ReportSchema || r.Winner == nil || *r.Winner != "fix" || r.Subdir != "sub" || brief.Winner == nil || *brief.Winner != "fix" {
		t.Fatalf("report: schema %q winner %v subdir %q", r.Schema, r.Winner, r.Subdir)
	}
	h := e2e.ByName(r)
	if h["fix"].Rank != 1 || h["fix"].Status != "passed" || h["wrong"].Status != "failed" || h["baseline"].Status != "failed" {
		t.Errorf("ranks/statuses: fix %d %s, wrong %s, baseline %s", h["fix"].Rank, h["fix"].Status, h["wrong"].Status, h["baseline"].Status)
	}
	if h["fix"].Tests == nil || h["fix"].Tests.Passed != 1 {
		t.Errorf("fix tests: %+v", h["fix"].Tests)
	}
	txt := e2e.Text(res)
	for _, want := range []string{"winner: fix", "+good", "wrong: failed", "shadow://run/" + r.Run + "/report"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text report lacks %q:\n%s", want, txt)
		}
	}
	if after := e2e.Tree(t, e.WS); after != before {
		t.Errorf("workspace changed by the run:\n%s\n---\n%s", before, after)
	}
	if left, _ := os.ReadDir(filepath.Join(e.State, "shadow", "sandboxes")); len(left) != 0 {
		t.Errorf("sandbox dirs left: %v", left)
	}

	// Progress: strictly increasing (the MCP specification), out of
	// hypotheses + 1 (the ranking), each message saying what is done.
	m.Mu.Lock()
	prog := append([]*mcp.ProgressNotificationParams(nil), m.Progress...)
	m.Mu.Unlock()
	var msgs []string
	last := -1.0
	for i, p := range prog {
		msgs = append(msgs, p.Message)
		if p.ProgressToken != "tok-1" || p.Total != 4 || p.Progress <= last || p.Progress > p.Total {
			t.Errorf("progress %d: %+v", i, p)
		}
		last = p.Progress
	}
	all := strings.Join(msgs, "\n")
	for _, n := range []string{"baseline", "fix", "wrong"} {
		if !strings.Contains(all, n+" passed") && !strings.Contains(all, n+" failed") {
			t.Errorf("progress for %s missing:\n%s", n, all)
		}
	}
	if !strings.Contains(all, "3/3 done") {
		t.Errorf("progress never says all are done:\n%s", all)
	}

	// The run is recorded: shadow_log lists it, shadow_show shows it.
	lg := m.MustCall("shadow_log", map[string]any{"cwd": e.WS})
	if lg.IsError || !strings.Contains(e2e.Text(lg), r.Run) || !strings.Contains(e2e.Text(lg), "winner fix") {
		t.Errorf("shadow_log: %s", e2e.Text(lg))
	}
	doc := e2e.Structured[mcpserver.LogDoc](t, lg)
	if doc.Total != 1 || doc.Runs[0].Run != r.Run || doc.Runs[0].State != "finished" || len(doc.Runs[0].Hypotheses) != 3 {
		t.Errorf("shadow_log doc: %+v", doc)
	}
	sh := m.MustCall("shadow_show", map[string]any{"ref": "@last/wrong", "cwd": e.WS})
	if sh.IsError || !strings.Contains(e2e.Text(sh), "0 passed, 1 failed") || !strings.Contains(e2e.Text(sh), "+worse") {
		t.Errorf("shadow_show @last/wrong: %s", e2e.Text(sh))
	}
	if d := e2e.Structured[mcpserver.ShowHypDoc](t, sh); d.Run != r.Run || d.Result.Name != "wrong" || !strings.Contains(d.Output, "0 passed, 1 failed") {
		t.Errorf("shadow_show doc: %+v", d)
	}
	sr := m.MustCall("shadow_show", map[string]any{"ref": r.Run[:15]})
	if sr.IsError || !strings.Contains(e2e.Text(sr), "winner: fix") {
		t.Errorf("shadow_show RUN: %s", e2e.Text(sr))
	}
	if bad := m.MustCall("shadow_show", map[string]any{"ref": "@last/nope"}); !bad.IsError || !strings.Contains(e2e.Text(bad), "ref:") {
		t.Errorf("shadow_show of a missing hypothesis: %v %s", bad.IsError, e2e.Text(bad))
	}
	// A later call builds on a recorded hypothesis through base.
	next := m.MustCall("shadow_run", map[string]any{
		"hypotheses": []any{map[string]any{"name": "next", "base": "@last/fix", "edits": []any{map[string]any{"path": "w.txt", "content": "new\n"}}}},
		"command":    []string{"sh", "-c", "cd .. && test -e w.txt && " + e2e.CheckScript},
	})
	if rn := e2e.Structured[mcpserver.RunDoc](t, next); next.IsError || rn.Winner == nil || *rn.Winner != "next" {
		t.Errorf("run on base @last/fix: %s", e2e.Text(next))
	}
	if bad := m.MustCall("shadow_run", map[string]any{"hypotheses": []any{map[string]any{"name": "n", "base": "@last/nope"}}, "command": []string{"true"}}); !bad.IsError || !strings.Contains(e2e.Text(bad), "base") {
		t.Errorf("unknown base: %v %s", bad.IsError, e2e.Text(bad))
	}
	if after := e2e.Tree(t, e.WS); after != before {
		t.Errorf("workspace changed by the runs:\n%s\n---\n%s", before, after)
	}
	pr := m.MustCall("shadow_probe", nil)
	if pr.IsError || !strings.Contains(e2e.Text(pr), "mode: overlay") {
		t.Errorf("shadow_probe: %s", e2e.Text(pr))
	}
}

func TestMCPNoWinnerIsAResultAndTailsAreTrimmed(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("v.txt", "bad\n", 0o644)
	// An edit's "file" is relative to cwd, here the server's -C directory.
	e.Write("cand/f.txt", "from a file\n", 0o644)
	m := e2e.NewMCPEnv(t, e, "", "-C", e.WS)
	res := m.MustCall("shadow_run", map[string]any{
		// Six failing hypotheses: the text keeps fewer lines of each.
		"hypotheses": []any{hyp("a", "nope\n"), hyp("b", "still bad\n"), hyp("c", "c\n"), hyp("d", "d\n"), hyp("e", "e\n"),
			map[string]any{"name": "f", "edits": []any{map[string]any{"path": "v.txt", "file": "cand/f.txt"}}}},
		"command": []string{"sh", "-c", `i=0; while [ $i -lt 300 ]; do echo "noise line $i"; i=$((i+1)); done; echo LAST-LINE; ` + e2e.CheckScript},
	})
	if res.IsError {
		t.Fatalf("no winner must not be a tool error: %s", e2e.Text(res))
	}
	brief := e2e.Structured[mcpserver.RunDoc](t, res)
	if brief.Winner != nil || len(brief.Hypotheses) != 6 || !strings.HasPrefix(brief.Summary, "no winner") {
		t.Fatalf("winner %v, %d hypotheses, summary %q", brief.Winner, len(brief.Hypotheses), brief.Summary)
	}
	if d := m.ReadResource("shadow://run/" + brief.RunID + "/f/diff"); !strings.Contains(d, "+from a file") {
		t.Errorf("edit from a file: diff %q", d)
	}
	// The result holds no output; the output resource holds all of it.
	txt := e2e.Text(res)
	if n := strings.Count(txt, "noise line"); n > 0 {
		t.Errorf("%d noise lines in the text", n)
	}
	if out := m.ReadResource("shadow://run/" + brief.RunID + "/a/output"); !strings.Contains(out, "noise line 0\n") || !strings.Contains(out, "LAST-LINE") {
		t.Errorf("the output resource is not the whole output:\n%.500s", out)
	}
	// The full output is there for the asking.
	sh := m.MustCall("shadow_show", map[string]any{"ref": "@last/a", "cwd": e.WS, "lines": 1000})
	if !strings.Contains(e2e.Text(sh), "noise line 0\n") {
		t.Errorf("shadow_show does not give the full output")
	}
}

func TestMCPBadArgumentsAreToolErrorsNamingTheField(t *testing.T) {
	e := e2e.NewPlainEnv(t)
	e.Write("a.txt", "a\n", 0o644)
	m := e2e.NewMCPEnv(t, e, e.WS)
	ok := []any{map[string]any{"name": "x"}}
	cases := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"absolute path", map[string]any{"hypotheses": []any{map[string]any{"name": "x", "edits": []any{map[string]any{"path": "/etc/passwd", "content": ""}}}}, "command": []string{"true"}}, []string{`"x"`, "edits[0].path"}},
		{"unknown field", map[string]any{"hypotheses": ok, "command": []string{"true"}, "bogus": 1}, []string{"bogus"}},
		{"unknown hyp field", map[string]any{"hypotheses": []any{map[string]any{"name": "x", "edit": []any{}}}, "command": []string{"true"}}, []string{`"x"`, "edit"}},
		{"no command", map[string]any{"hypotheses": ok}, []string{"command"}},
		{"no hypotheses", map[string]any{"command": []string{"true"}}, []string{"hypotheses"}},
		{"empty hypotheses", map[string]any{"hypotheses": []any{}, "command": []string{"true"}}, []string{"hypotheses"}},
		{"bad mode", map[string]any{"hypotheses": ok, "command": []string{"true"}, "mode": "fast"}, []string{"mode"}},
		{"bad timeout", map[string]any{"hypotheses": ok, "command": []string{"true"}, "timeout": "soon"}, []string{"timeout"}},
		{"command not array", map[string]any{"hypotheses": ok, "command": "make test"}, []string{"command"}},
		{"apply not bool", map[string]any{"hypotheses": ok, "command": []string{"true"}, "apply": "yes"}, []string{"apply"}},
		{"missing cwd", map[string]any{"hypotheses": ok, "command": []string{"true"}, "cwd": filepath.Join(e.WS, "nope")}, []string{"cwd"}},
		{"bad patch", map[string]any{"hypotheses": []any{map[string]any{"name": "x", "patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-zzz\n+b\n"}}, "command": []string{"true"}}, []string{`"x"`, "patch"}},
		{"bad base64", map[string]any{"hypotheses": []any{map[string]any{"name": "x", "edits": []any{map[string]any{"path": "a.txt", "content_base64": "!!"}}}}, "command": []string{"true"}}, []string{`"x"`, "content_base64"}},
	}
	for _, c := range cases {
		res := m.MustCall("shadow_run", c.args)
		if !res.IsError {
			t.Errorf("%s: not a tool error: %s", c.name, e2e.Text(res))
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(e2e.Text(res), w) {
				t.Errorf("%s: message does not name %s: %s", c.name, w, e2e.Text(res))
			}
		}
	}
	if _, err := os.Stat(filepath.Join(e.State, "shadow", "workspaces")); !os.IsNotExist(err) {
		t.Errorf("refused runs recorded something: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(e.WS, "a.txt")); string(b) != "a\n" {
		t.Errorf("workspace changed: %q", b)
	}
	for name, args := range map[string]map[string]any{
		"shadow_show": {"ref": "@last", "extra": true},
		"shadow_log":  {"limit": "ten"},
	} {
		if res := m.MustCall(name, args); !res.IsError || !strings.Contains(e2e.Text(res), map[string]string{"shadow_show": "extra", "shadow_log": "limit"}[name]) {
			t.Errorf("%s: %v %s", name, res.IsError, e2e.Text(res))
		}
	}
}

func TestMCPCancelEndsTheRunAndCleansUp(t *testing.T) {
	e := e2e.NewEnv(t)
	m := e2e.NewMCPEnv(t, e, "")
	marker := "327." + strconv.Itoa(os.Getpid())
	run := func(ctx context.Context, m *e2e.MCPEnv, sleep string) (*mcp.CallToolResult, error) {
		return m.Call(ctx, "shadow_run", map[string]any{
			"hypotheses": []any{map[string]any{"name": "slow"}, map[string]any{"name": "slow2", "edits": []any{map[string]any{"path": "x", "content": "x"}}}},
			"command":    []string{"sh", "-c", "sleep " + sleep + " & sleep " + sleep},
			"cwd":        e.WS,
		}, "tok")
	}
	// The client cancels the call: notifications/cancelled reaches the server.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := run(ctx, m, marker+"1"); done <- err }()
	e2e.WaitPresent(t, marker+"1")
	cancel()
	if err := <-done; err == nil {
		t.Errorf("cancelled call returned no error")
	}
	e2e.WaitGone(t, marker+"1")
	waitNoSandboxes(t, e)
	// The server is still serving.
	if res := m.MustCall("shadow_probe", map[string]any{}); res.IsError {
		t.Errorf("after a cancel: %s", e2e.Text(res))
	}
	// The last recorded run says it was cancelled.
	waitFor(t, "the cancelled run's report", func() bool {
		sr := m.MustCall("shadow_show", map[string]any{"ref": "@last", "cwd": e.WS})
		return !sr.IsError && e2e.Structured[mcpserver.RunDoc](t, sr).State == "cancelled"
	})

	// The client goes away mid-run (its end of the server's stdin closes,
	// as when an agent is killed): the server ends the run, cleans up and
	// exits. (An SDK client's Close waits for its calls to return, so the
	// pipe is closed here directly.)
	c := e.Cmd("mcp")
	c.Stderr = &e2e.TestWriter{T: t}
	stdin, _ := c.StdinPipe()
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "shadow-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m2 := &e2e.MCPEnv{Env: e, Cs: cs}
	go func() { _, err := run(context.Background(), m2, marker+"2"); done <- err }()
	e2e.WaitPresent(t, marker+"2")
	start := time.Now()
	stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("shadow mcp exit: %v", err)
		}
	case <-time.After(20 * time.Second):
		c.Process.Kill()
		t.Fatalf("shadow mcp still running %v after its stdin closed", time.Since(start))
	}
	<-done
	e2e.WaitGone(t, marker+"2")
	waitNoSandboxes(t, e)
}

func waitNoSandboxes(t *testing.T, e *e2e.Env) {
	t.Helper()
	waitFor(t, "sandbox dirs removed", func() bool {
		left, _ := os.ReadDir(filepath.Join(e.State, "shadow", "sandboxes"))
		return len(left) == 0
	})
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if cond() {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for: %s", what)
}

// TestMCPStdoutIsOnlyProtocol: nothing but JSON-RPC reaches the server's
// stdout, even from a command that writes to an inherited fd 1.
func TestMCPStdoutIsOnlyProtocol(t *testing.T) {
	e := e2e.NewPlainEnv(t)
	c := e.Cmd("mcp")
	c.Dir = e.WS
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shadow_run","arguments":{"hypotheses":[{"name":"x","edits":[{"path":"/abs","content":""}]}],"command":["true"]}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
	}, "\n") + "\n"
	stdin, _ := c.StdinPipe()
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, in)
	var got []string
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for len(got) < 3 && sc.Scan() {
		got = append(got, sc.Text())
	}
	stdin.Close()
	rest, _ := io.ReadAll(stdout)
	if err := c.Wait(); err != nil {
		t.Errorf("shadow mcp after stdin closed: %v", err)
	}
	out := strings.Join(got, "\n") + "\n" + string(rest)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, l := range lines {
		var msg map[string]any
		if err := json.Unmarshal([]byte(l), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Errorf("not a JSON-RPC message on stdout: %q", l)
		}
	}
	if len(lines) != 3 || !strings.Contains(lines[1], `"isError":true`) || !strings.Contains(lines[1], "edits[0].path") {
		t.Errorf("responses:\n%s", out)
	}
}

// Each of ten malformed messages gets the JSON-RPC error it deserves
// through the binary's stdio (-32700 for what is not JSON, -32600 for what
// is not a request; id null where it cannot be read, 7.5 answered as 7.5),
// and the server goes on answering.
func TestMCPMalformedLineIsAParseError(t *testing.T) {
	e := e2e.NewPlainEnv(t)
	c := e.Cmd("mcp")
	c.Dir = e.WS
	bad := []string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"`,
		`not json at all`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"tools/list"}`,
		`{"jsonrpc":"1.0","id":4,"method":"tools/list"}`,
		`{"id":5,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":6,"method":5}`,
		`"tools/list"`,
		`{"jsonrpc":"2.0","id":7.5,"method":"tools/list"}`,
	}
	in := strings.Join(append(append([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}, bad...), `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`), "\n") + "\n"
	stdin, _ := c.StdinPipe()
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, in)
	var got []map[string]any
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for len(got) < len(bad)+2 && sc.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("not JSON on stdout: %q", sc.Text())
		}
		got = append(got, msg)
	}
	stdin.Close()
	if err := c.Wait(); err != nil {
		t.Errorf("shadow mcp: %v", err)
	}
	codes, listed := map[float64]int{}, false
	for _, m := range got {
		if e, ok := m["error"].(map[string]any); ok {
			codes[e["code"].(float64)]++
			if m["id"] == float64(7) {
				t.Errorf("id 7.5 answered as 7: %v", m)
			}
		}
		if m["id"] == float64(3) && m["result"] != nil {
			listed = true
		}
	}
	if codes[-32700] != 2 || codes[-32600] != len(bad)-2 || !listed {
		t.Errorf("want 2 parse errors, %d invalid requests and tools/list answered after them: %v", len(bad)-2, got)
	}
}
