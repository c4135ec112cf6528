package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/engine/spec"
	"github.com/shadow-dev/shadow/internal/hypsrc"
	"github.com/shadow-dev/shadow/internal/run"
)

// mcpRunArgs are shadow_run's arguments: the spec (docs/spec.md) plus the
// run flags an agent needs. The struct gives the advertised input schema;
// decoding goes through engine.DecodeSpec so that a refusal reads exactly
// as the CLI's (naming the hypothesis and the field).
type mcpRunArgs struct {
	mcpSourceArgs
	Common         *mcpCommon        `json:"common,omitempty" jsonschema:"files every hypothesis and the baseline get (e.g. a reproduction test); never applied"`
	Hypotheses     []mcpHyp          `json:"hypotheses,omitempty" jsonschema:"the candidate fixes (one that changes nothing is a baseline)"`
	Command        []string          `json:"command" jsonschema:"the test command's argument vector (no shell), e.g. [\"go\",\"test\",\"./...\"]; exit 0 passes"`
	Cwd            string            `json:"cwd,omitempty" jsonschema:"absolute dir the command runs in (default: the server's)"`
	Timeout        string            `json:"timeout,omitempty" jsonschema:"per hypothesis, e.g. 90s (default 10m)"`
	Jobs           int               `json:"jobs,omitempty" jsonschema:"hypotheses at once (default: CPUs)"`
	Apply          bool              `json:"apply,omitempty" jsonschema:"write the winner into the checkout after the run"`
	Mode           string            `json:"mode,omitempty" jsonschema:"the sandbox (default auto)"`
	Baseline       bool              `json:"baseline,omitempty" jsonschema:"add a no-edit hypothesis named baseline"`
	Env            map[string]string `json:"env,omitempty" jsonschema:"extra environment variables"`
	Net            string            `json:"net,omitempty" jsonschema:"network: private (overlay's default), isolated (loopback) or host"`
	HostPorts      []int             `json:"host_ports,omitempty" jsonschema:"host TCP ports each hypothesis reaches on its 127.0.0.1 (net private)"`
	Memory         string            `json:"memory,omitempty" jsonschema:"per-hypothesis memory cap, e.g. 2G"`
	Tmp            string            `json:"tmp,omitempty" jsonschema:"the command's /tmp (private: overlay's default)"`
	Writable       []string          `json:"writable,omitempty" jsonschema:"overlay: absolute dirs outside the workspace it may write (discarded)"`
	JUnit          string            `json:"junit,omitempty" jsonschema:"a JUnit XML file the command writes (its counts win)"`
	Keep           bool              `json:"keep,omitempty" jsonschema:"keep what each command wrote (overlay)"`
	Freeze         bool              `json:"freeze,omitempty" jsonschema:"run on a copy of the sources taken at the start (overlay)"`
	Confirm        int               `json:"confirm,omitempty" jsonschema:"rerun the baseline and the leader N more times (max 3) before a win"`
	TestPaths      []string          `json:"test_paths,omitempty" jsonschema:"globs of the test files (a candidate changing one cannot win)"`
	AllowTestEdits bool              `json:"allow_test_edits,omitempty" jsonschema:"let a candidate that changes or drops tests win"`
	Remote         []string          `json:"remote,omitempty" jsonschema:"Linux nodes to run on over SSH, as --remote (local: this machine)"`
	RemoteDir      string            `json:"remote_dir,omitempty" jsonschema:"the mirror's path on the nodes, as --remote-dir"`
	Upper          string            `json:"upper,omitempty" jsonschema:"overlay: writes on disk (default) or ram (a tmpfs of upper_size)"`
	UpperSize      string            `json:"upper_size,omitempty" jsonschema:"with upper ram: each tmpfs's cap, e.g. 2G"`
	NoWarm         bool              `json:"no_warm,omitempty" jsonschema:"do not use or feed the warm layer of build outputs"`
	Wait           *bool             `json:"wait,omitempty" jsonschema:"false: return a run_id at once, for shadow_wait (default true)"`

	AllowSuspicious bool   `json:"allow_suspicious,omitempty" jsonschema:"let a candidate the judge-aware scan flagged win"`
	NoCross         bool   `json:"no_cross,omitempty" jsonschema:"do not run candidates' proposed tests on each other"`
	WithTests       bool   `json:"with_tests,omitempty" jsonschema:"with apply: write the winner's proposed tests too"`
	Shard           string `json:"shard,omitempty" jsonschema:"run slice K/N of the hypotheses (shadow_merge joins them)"`
	TestsFrom       string `json:"tests_from,omitempty" jsonschema:"a dir or diff of tests written before the candidates"`
}

// mcpSourceArgs are shadow_run's hypotheses from outside the spec, as the
// CLI's --patch, --ref and --worktrees (internal/hypsrc).
type mcpSourceArgs struct {
	Patches   []string `json:"patches,omitempty" jsonschema:"diff files (or dirs of them), a hypothesis each"`
	Refs      []string `json:"refs,omitempty" jsonschema:"branches or commits, a hypothesis each (changes since the merge base)"`
	Worktrees bool     `json:"worktrees,omitempty" jsonschema:"a hypothesis per other git worktree"`
}

type mcpHyp struct {
	Name   string    `json:"name" jsonschema:"unique: 1-64 of A-Z a-z 0-9 . _ -"`
	Base   string    `json:"base,omitempty" jsonschema:"start from a recorded hypothesis: RUN/HYP or @last/HYP"`
	Edits  []mcpEdit `json:"edits,omitempty" jsonschema:"files it writes, each whole"`
	Delete []string  `json:"delete,omitempty" jsonschema:"workspace-relative paths to delete"`
	Patch  string    `json:"patch,omitempty" jsonschema:"a unified diff applied over the base"`
}

type mcpEdit struct {
	Path          string  `json:"path" jsonschema:"workspace-relative, / separated"`
	Content       *string `json:"content,omitempty" jsonschema:"the whole new text (what it omits is deleted: prefer patch)"`
	ContentBase64 *string `json:"content_base64,omitempty" jsonschema:"the whole new content, base64"`
	File          string  `json:"file,omitempty" jsonschema:"take the content from this file"`
	Mode          string  `json:"mode,omitempty" jsonschema:"octal permission bits, e.g. 0755"`
}

// runOnlyArgs are shadow_run's arguments that are not spec fields.
var runOnlyArgs = map[string]bool{"patches": true, "refs": true, "worktrees": true, "cwd": true, "apply": true, "mode": true, "baseline": true, "keep": true, "freeze": true,
	"remote": true, "remote_dir": true, "upper": true, "upper_size": true, "no_warm": true, "with_tests": true, "wait": true}

// runRequest is a decoded shadow_run call.
type runRequest struct {
	spec     *engine.Spec
	cwd      string
	mode     run.Mode
	apply    bool
	baseline bool
	keep     bool
	freeze   bool
	// remote: the nodes (run.Options.Remote); an entry written as the
	// spec's {"node": N, "jobs": J} keeps its jobs (nodes, into the spec).
	remote    []string
	nodes     []engine.RemoteNode
	remoteDir string
	upper     run.Upper
	upperSize int64
	noWarm    bool
	// withTests: with apply, the winner's proposed tests too.
	withTests bool
	// wait: answer when the run ends (the default); false: at once, with
	// its run_id for shadow_wait.
	wait bool
}

// parseRunArgs decodes shadow_run's arguments: run-only fields here, the
// rest as a spec, strictly (engine.DecodeSpec). Errors name the field.
func parseRunArgs(raw json.RawMessage, serverCwd string) (*runRequest, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	if err := topLevelDuplicates(raw); err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("arguments: must be an object (%v)", err)
	}
	r := &runRequest{wait: true}
	var mode, upper, upperSize string
	str := func(name string, dst *string) error {
		if v, ok := fields[name]; ok && string(v) != "null" {
			if err := json.Unmarshal(v, dst); err != nil {
				return fmt.Errorf("%s: must be a string", name)
			}
		}
		return nil
	}
	boolean := func(name string, dst *bool) error {
		if v, ok := fields[name]; ok && string(v) != "null" {
			if err := json.Unmarshal(v, dst); err != nil {
				return fmt.Errorf("%s: must be true or false", name)
			}
		}
		return nil
	}
	for _, err := range []error{str("cwd", &r.cwd), str("mode", &mode), boolean("apply", &r.apply), boolean("with_tests", &r.withTests), boolean("baseline", &r.baseline), boolean("keep", &r.keep), boolean("freeze", &r.freeze),
		str("remote_dir", &r.remoteDir), remoteArg(fields["remote"], r),
		str("upper", &upper), str("upper_size", &upperSize), boolean("no_warm", &r.noWarm), boolean("wait", &r.wait)} {
		if err != nil {
			return nil, err
		}
	}
	if r.remoteDir != "" && len(r.remote) == 0 {
		return nil, fmt.Errorf("remote_dir: needs remote (the nodes whose mirror it places)")
	}
	var err error
	if r.mode, err = run.ParseMode(mode); err != nil {
		return nil, fmt.Errorf("mode: %q: %v", mode, err)
	}
	if r.upper, err = run.ParseUpper(upper); err != nil {
		return nil, fmt.Errorf("upper: %q: %v", upper, err)
	}
	if upperSize != "" {
		if err := (run.SizeValue{N: &r.upperSize}).Set(upperSize); err != nil {
			return nil, fmt.Errorf("upper_size: %q: %v", upperSize, err)
		}
	}
	switch {
	case r.cwd == "":
		r.cwd = serverCwd
	case !filepath.IsAbs(r.cwd):
		return nil, fmt.Errorf("cwd: %q is relative: give an absolute directory (or none, for %s)", r.cwd, serverCwd)
	}
	if fi, err := os.Stat(r.cwd); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("cwd: %s is not a directory", r.cwd)
	}
	spec := map[string]json.RawMessage{}
	for k, v := range fields {
		if !runOnlyArgs[k] {
			spec[k] = v
		}
	}
	if err := addSources(fields, spec, r.cwd); err != nil {
		return nil, err
	}
	if _, ok := spec["hypotheses"]; !ok {
		return nil, fmt.Errorf("hypotheses: required (or patches, refs or worktrees): an array of {\"name\": ..., \"edits\": [{\"path\": ..., \"content\": ...}]}")
	}
	data, _ := json.Marshal(spec)
	s, err := engine.DecodeSpec(data)
	if err != nil {
		return nil, err
	}
	if len(s.Command) == 0 {
		return nil, fmt.Errorf("command: required: the test command as an argument vector, e.g. [\"go\", \"test\", \"./...\"]")
	}
	if len(r.nodes) > 0 {
		s.Remote = r.nodes
	}
	r.spec = s
	return r, nil
}

// addSources adds to spec's "hypotheses" those of the call's patches,
// refs and worktrees (hypsrc, as the CLI's --patch, --ref, --worktrees),
// named apart from the spec's own.
func addSources(fields, spec map[string]json.RawMessage, cwd string) error {
	var src hypsrc.Sources
	for name, dst := range map[string]*[]string{"patches": &src.Patches, "refs": &src.Refs} {
		if v, ok := fields[name]; ok && string(v) != "null" {
			if err := json.Unmarshal(v, dst); err != nil {
				return fmt.Errorf("%s: must be an array of strings", name)
			}
		}
	}
	if v, ok := fields["worktrees"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &src.Worktrees); err != nil {
			return fmt.Errorf("worktrees: must be true or false")
		}
	}
	if !src.Any() {
		return nil
	}
	var own []json.RawMessage
	if v, ok := spec["hypotheses"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &own); err != nil {
			return fmt.Errorf("hypotheses: must be an array")
		}
	}
	taken := map[string]bool{"baseline": true}
	for _, h := range own {
		var n struct{ Name string }
		_ = json.Unmarshal(h, &n)
		taken[strings.ToLower(n.Name)] = true
	}
	ws, _, err := run.ResolveWorkspace("", cwd)
	if err != nil {
		return fmt.Errorf("cwd: %v", err)
	}
	more, err := src.Hypotheses(ws, cwd, taken)
	if err != nil {
		return errors.New(strings.NewReplacer("--patch", "patches", "--ref", "refs", "--worktrees", "worktrees").Replace(err.Error()))
	}
	for _, h := range more {
		b, _ := json.Marshal(h)
		own = append(own, b)
	}
	spec["hypotheses"], _ = json.Marshal(own)
	return nil
}

// remoteArg decodes shadow_run's "remote": node names (or the spec's
// {"node": N, "jobs": J} entries), each checked as the CLI checks them.
func remoteArg(v json.RawMessage, r *runRequest) error {
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	var nodes []engine.RemoteNode
	if err := json.Unmarshal(v, &nodes); err != nil {
		return fmt.Errorf("remote: want an array of ssh destinations, e.g. [\"build1\", \"user@build2\"] (%v)", err)
	}
	for _, n := range nodes {
		if err := spec.ValidNodeName(n.Node); err != nil {
			return fmt.Errorf("remote: %v", err)
		}
		r.remote = append(r.remote, n.Node)
	}
	r.nodes = nodes
	return nil
}

// topLevelDuplicates refuses an argument given twice (a map would keep
// only the last silently).
func topLevelDuplicates(raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("arguments: must be an object")
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("arguments: invalid JSON: %v", err)
		}
		k, _ := tok.(string)
		if seen[k] {
			return fmt.Errorf("%s: given twice", k)
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return fmt.Errorf("arguments: invalid JSON: %v", err)
		}
	}
	return nil
}

func (s *Server) toolRun(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	in, err := parseRunArgs(req.Params.Arguments, s.cwd)
	if err != nil {
		return toolError("%v", err), nil
	}
	// Planning may wait for the workspace lock: that wait ends with the
	// call or the server.
	pctx, release := s.runContext(ctx)
	p, err := run.NewPlan(pctx, in.spec, in.cwd, run.Options{
		Cwd: in.cwd, Mode: in.mode, Apply: in.apply, WithTests: in.withTests, Baseline: in.baseline, Keep: in.keep, Freeze: in.freeze,
		Remote: in.remote, RemoteDir: in.remoteDir,
		Upper: in.upper, UpperSize: in.upperSize, NoWarm: in.noWarm,
		Notices: s.notices, Version: s.version,
	})
	release()
	if err != nil {
		return toolError("%v", err), nil
	}
	l, err := s.startRun(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return toolError("%v", err), nil
	}
	if !in.wait {
		d := l.doc()
		d.Summary = fmt.Sprintf("run %s started (%d hypotheses): call shadow_wait with this run_id for its report; shadow_show ref %q gives its live state\n%s", d.RunID, len(d.Hypotheses), d.RunID, d.Summary)
		return runResult(d, nil), nil
	}
	return s.waitResult(ctx, req, l, time.Time{})
}

// waitResult follows l until it ends (the result is its report), until
// passes (its live state, "running"), or the call is cancelled: that ends
// the run, whose partial report is recorded (shadow_show, resources/read).
func (s *Server) waitResult(ctx context.Context, req *mcp.CallToolRequest, l *liveRun, until time.Time) (*mcp.CallToolResult, error) {
	switch err := s.follow(ctx, req, l, until); {
	case errors.Is(err, errWaitOver):
		return runResult(l.doc(), nil), nil
	case err != nil:
		l.cancel()
		select {
		case <-l.done:
		case <-time.After(30 * time.Second):
		}
		return nil, err
	}
	rep, err := l.report()
	if rep == nil {
		if err == nil {
			err = errors.New("the run ended without a report")
		}
		return toolError("%v", err), nil
	}
	d := briefOf(rep)
	return runResult(d, briefNames(d)), nil
}

// cutDiff keeps the first limit bytes of diff, at a line end, and says
// how much is left out and where it is whole.
func cutDiff(diff string, limit int, ref string) string {
	if len(diff) <= limit {
		return diff
	}
	keep := diff[:limit]
	if i := strings.LastIndexByte(keep, '\n'); i > 0 {
		keep = keep[:i+1]
	}
	return keep + fmt.Sprintf("[… diff cut here: %d more byte(s); shadow_show %s gives it whole]\n", len(diff)-len(keep), ref)
}
