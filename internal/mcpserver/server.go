// Package mcpserver is `shadow mcp`: the engine's front end for coding
// agents, over the run service (internal/run) and the snapshot store.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/internal/sandbox"
	"github.com/shadow-dev/shadow/snap"
)

// Server is an MCP server whose tool calls plan and run exactly as the CLI
// does (run.NewPlan, (*run.Plan).Run); runs are recorded in the snapshot
// store like any other.
type Server struct {
	server  *mcp.Server
	cwd     string    // the server's working directory: the default "cwd"
	version string    // shadow's version (the probe cache is per version)
	notices io.Writer // the runs' notices for people (the server's stderr)

	// life ends when the server stops; every run's context ends with it,
	// and shutdown waits for the runs to clean up.
	life    context.Context
	stop    context.CancelFunc
	running sync.WaitGroup

	runs registry // the runs this server started, merged reports, run workspaces
}

const mcpInstructions = `shadow tests candidate fixes ("hypotheses") in parallel, each in a private overlay shadow of the workspace, and ranks them: the working tree is never touched (unless apply is set and a hypothesis passed).
Call shadow_run with every candidate at once and the test command as an argument vector. The result says which hypothesis passed (the winner, with its diff) and shows the failing output of the others. A run where none passes is a normal result.
Send each candidate as a "patch" (a unified diff, as git diff prints it) when it changes part of a file: it costs fewer tokens, and an edit's "content" replaces the whole file, so whatever it leaves out is deleted. Use "content" for new or small files.
A long run: call shadow_run with "wait": false (it returns a run_id at once), then shadow_wait with that run_id until its state is no longer running.
Runs are recorded: shadow_log lists them, shadow_show RUN/HYP gives a hypothesis's diff and full output (also resources shadow://run/ID/HYP/diff and .../output). To refine a candidate, start a new one from it with "base": "RUN/HYP" (or "@last/HYP") and send only what changes.`

// New is a server whose calls default to directory cwd; version is
// shadow's, notices receives what runs say for people (nil: nothing).
func New(cwd, version string, notices io.Writer) *Server {
	if notices == nil {
		notices = io.Discard
	}
	s := &Server{cwd: cwd, version: version, notices: notices}
	s.life, s.stop = context.WithCancel(context.Background())
	s.server = mcp.NewServer(&mcp.Implementation{Name: "shadow", Title: "shadow", Version: s.version},
		&mcp.ServerOptions{Instructions: mcpInstructions, Capabilities: &mcp.ServerCapabilities{}})
	yes, no := true, false
	runDoc := outputSchema[RunDoc]()
	s.server.AddTool(&mcp.Tool{
		Name:  "shadow_run",
		Title: "Run candidate fixes in parallel shadows",
		Description: "Test several candidate fixes (hypotheses) at once, each in its own shadow of the workspace, and rank them; the checkout is untouched unless apply. " +
			"Include a no-edit baseline. Returns a summary (the winner or why none, a line per hypothesis), the winner's diff and links to the rest. Long suites: wait:false, then shadow_wait.",
		InputSchema:  runInputSchema(),
		OutputSchema: runDoc,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &yes},
	}, s.toolRun)
	s.server.AddTool(&mcp.Tool{
		Name:        "shadow_wait",
		Title:       "Wait for a run started with wait:false",
		Description: "Wait up to timeout_s, with progress, for a run started with wait:false; returns what shadow_run returns, or state running: call again. Cancelling the call, or cancel:true, ends the run.",
		// The RunDoc's schema is given once, on shadow_run: tools/list
		// is in every session's context, and this result is that one.
		InputSchema: mustSchema[mcpWaitArgs](nil),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no},
	}, s.toolWait)
	s.server.AddTool(&mcp.Tool{
		Name:        "shadow_log",
		Title:       "List recorded runs",
		Description: "The workspace's recorded runs, oldest first: id, state, command, winner, each hypothesis's status. A run id (or @last) is a ref for shadow_show.",
		// No output schema: a model is given the structured content,
		// never a schema (a client validates with it), and the LogDoc's
		// would cost 4,200 of tools/list's characters (its fields are in
		// docs/agents.md's "shadow_log's result"). The RunDoc's and the
		// ApplyDoc's stay: what a run and an apply return is checked.
		InputSchema: mustSchema[mcpLogArgs](nil),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no},
	}, s.toolLog)
	s.server.AddTool(&mcp.Tool{
		Name:        "shadow_show",
		Title:       "Show a recorded run or hypothesis",
		Description: "ref RUN: a run's result as shadow_run returns it (live while it runs); ref RUN/HYP: a hypothesis's status, counts, whole diff and output tail. RUN: an id, a unique prefix or @last.",
		InputSchema: mustSchema[mcpShowArgs](nil),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no},
	}, s.toolShow)
	s.server.AddTool(&mcp.Tool{
		Name:         "shadow_apply",
		Title:        "Write a recorded hypothesis into the checkout",
		Description:  "Write a recorded hypothesis (ref RUN/HYP) into the checkout, as `shadow apply`, if every file it writes is as its run found it; one that did not pass or cannot win is refused, naming why, unless force.",
		InputSchema:  mustSchema[mcpApplyArgs](nil),
		OutputSchema: outputSchema[ApplyDoc](),
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no},
	}, s.toolApply)
	s.server.AddTool(&mcp.Tool{
		Name:        "shadow_merge",
		Title:       "Merge the shard reports of one run",
		Description: "Join the shard reports of one run (--shard K/N), ranked as the unsharded run would be; shards of other runs or a missing one are refused. With apply and spec, write the winner. Returns what shadow_run returns.",
		InputSchema: mustSchema[mcpMergeArgs](nil),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &no},
	}, s.toolMerge)
	s.server.AddTool(&mcp.Tool{
		Name:        "shadow_probe",
		Title:       "Which sandbox this machine gives",
		Description: "Which sandbox mode this machine gives runs (overlay, copy or inplace), why, and how to get overlay.",
		InputSchema: mustSchema[mcpProbeArgs](nil),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no},
	}, s.toolProbe)
	s.addResources()
	return s
}

// Run serves the MCP protocol on t until the client goes or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.server.Run(ctx, t)
}

// Stop ends every run still going (their calls answer as cancelled).
func (s *Server) Stop() { s.stop() }

// Shutdown ends every run still going and waits (up to limit) for their
// sandboxes to be cleaned up.
func (s *Server) Shutdown(limit time.Duration) bool {
	s.stop()
	return s.idle(limit)
}

// idle reports whether every call in flight has returned within limit.
func (s *Server) idle(limit time.Duration) bool {
	done := make(chan struct{})
	go func() { s.running.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(limit):
		return false
	}
}

// runContext is ctx (the request's: the client may cancel it) that also
// ends when the server stops; the run counts as running until release.
func (s *Server) runContext(ctx context.Context) (context.Context, func()) {
	s.running.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.life, cancel)
	return ctx, func() {
		stop()
		cancel()
		s.running.Done()
	}
}

// mustSchema is the input schema inferred from T's json and jsonschema
// (description) tags, made portable: plain JSON Schema with no $ref, no
// composition, and a single "type" per property (the inference writes
// ["null","array"] for slices and pointers; clients send nothing rather
// than null). enums adds "enum" to top-level string properties.
func mustSchema[T any](enums map[string][]any) *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	portable(sc)
	for name, vals := range enums {
		sc.Properties[name].Enum = vals
	}
	return sc
}

func portable(sc *jsonschema.Schema) {
	if sc == nil {
		return
	}
	if len(sc.Types) > 0 {
		var keep []string
		for _, t := range sc.Types {
			if t != "null" {
				keep = append(keep, t)
			}
		}
		if len(keep) == 1 {
			sc.Type, sc.Types = keep[0], nil
		}
	}
	for _, p := range sc.Properties {
		portable(p)
	}
	portable(sc.Items)
	portable(sc.AdditionalProperties)
}

// toolError is a tool call that failed because of its arguments or the
// machine: the model sees the message and can correct itself.
func toolError(format string, a ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, a...)}}}
}

// toolResult is a text for the model and a JSON document for programs.
func toolResult[T any](text string, doc T) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: doc}
}

// decodeArgs decodes a tool's arguments strictly (unknown fields refused,
// named) into v.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if ute, ok := err.(*json.UnmarshalTypeError); ok && ute.Field != "" {
			return fmt.Errorf("%s: must be %s", ute.Field, jsonKind(ute.Type))
		}
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fmt.Errorf("%s: unknown field (the fields are: %s)", strings.Trim(f, `"`), fieldNames(v))
		}
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Slice:
		return "an array"
	}
	return "an object"
}

func fieldNames(v any) string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); n != "" && n != "-" {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

type mcpProbeArgs struct {
	Fresh bool `json:"fresh,omitempty" jsonschema:"probe again instead of using the verdict cached for this boot"`
}

func (s *Server) toolProbe(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in mcpProbeArgs
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return toolError("%v", err), nil
	}
	store, err := snap.DefaultStore()
	if err != nil {
		return toolError("%v", err), nil
	}
	// The same explanation as `shadow probe`, for the workspace a run
	// from the server's directory would use.
	e := sandbox.Explain(store, run.ProbeWorkspace(s.cwd), s.version, in.Fresh)
	return toolResult(e.Text(), e), nil
}
