//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/mcpserver"
)

// The MCP server is tested from the outside: an SDK client over a command
// transport, against the test binary re-executed as `shadow mcp`.

type MCPEnv struct {
	*Env
	Cs       *mcp.ClientSession
	Mu       sync.Mutex
	Progress []*mcp.ProgressNotificationParams
}

// NewMCPEnv starts `shadow mcp` in dir (the server's working directory; the
// spec dir when empty) and connects a client to it.
func NewMCPEnv(t *testing.T, e *Env, dir string, flags ...string) *MCPEnv {
	t.Helper()
	m := &MCPEnv{Env: e}
	c := e.Cmd(append([]string{"mcp"}, flags...)...)
	if dir != "" {
		c.Dir = dir
	}
	c.Stderr = &TestWriter{T: t}
	client := mcp.NewClient(&mcp.Implementation{Name: "shadow-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			m.Mu.Lock()
			m.Progress = append(m.Progress, req.Params)
			m.Mu.Unlock()
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: c, TerminateDuration: 20 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect to shadow mcp: %v", err)
	}
	m.Cs = cs
	t.Cleanup(func() { cs.Close() })
	return m
}

// TestWriter passes the server's stderr to the test log.
type TestWriter struct {
	T  *testing.T
	Mu sync.Mutex
}

func (w *TestWriter) Write(p []byte) (int, error) {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	w.T.Logf("shadow mcp stderr: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// NewPlainEnv is an env for what needs no sandbox (listing tools, refusals).
func NewPlainEnv(t *testing.T) *Env {
	Parallel(t)
	return &Env{T: t, WS: t.TempDir(), State: t.TempDir(), Dir: t.TempDir()}
}

func (m *MCPEnv) Call(ctx context.Context, name string, args any, token any) (*mcp.CallToolResult, error) {
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	if token != nil {
		p.SetProgressToken(token)
	}
	return m.Cs.CallTool(ctx, p)
}

func (m *MCPEnv) MustCall(name string, args any) *mcp.CallToolResult {
	m.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := m.Call(ctx, name, args, nil)
	if err != nil {
		m.T.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

// Report is the full report a result links to (resources/read).
func (m *MCPEnv) Report(d *mcpserver.RunDoc) *engine.Report {
	m.T.Helper()
	var r engine.Report
	if err := json.Unmarshal([]byte(m.ReadResource(d.Links.Report)), &r); err != nil {
		m.T.Fatalf("%s: %v", d.Links.Report, err)
	}
	return &r
}

// readResource reads uri through the client, as an agent would.
func (m *MCPEnv) ReadResource(uri string) string {
	m.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rr, err := m.Cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		m.T.Fatalf("resources/read %s: %v", uri, err)
	}
	var b strings.Builder
	for _, c := range rr.Contents {
		b.WriteString(c.Text)
	}
	return b.String()
}

func Text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func Structured[T any](t *testing.T, res *mcp.CallToolResult) *T {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("structured content: %v\n%s", err, b)
	}
	return &v
}
