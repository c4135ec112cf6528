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

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/hypsrc"
	"github.com/shadow-dev/shadow/internal/records"
	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/internal/sandbox/remote"
)

// mcpRunArgs are shadow_run's arguments: the spec (docs/spec.md) plus the
// run flags an agent needs. The struct gives the advertised input schema;
// decoding goes through engine.DecodeSpec so that a refusal reads exactly
// as the CLI's (naming the hypothesis and the field).
type mcpRunArgs struct {
	mcpSourceArgs
	Common         *mcpCommon        `json:"common,omitempty" jsonschema:"what every hypothesis gets, the baseline included (a reproduction test for all candidates): its files are the judge's, never applied, and a hypothesis that changes one is editing the tests"`
	Hypotheses     []mcpHyp          `json:"hypotheses,omitempty" jsonschema:"the candidate fixes, each run in its own shadow of the workspace. A hypothesis with no edits, delete or patch is a baseline (the checkout as it is)"`
	Command        []string          `json:"command" jsonschema:"the test command as an argument vector, run with no shell in the counterpart of cwd inside each shadow, e.g. [\"go\",\"test\",\"./...\"] or [\"sh\",\"-c\",\"make test\"]. Exit status 0 means the hypothesis passed"`
	Cwd            string            `json:"cwd,omitempty" jsonschema:"absolute directory the command runs in; the workspace is the git top-level holding it, else the directory itself. Default: the server's working directory"`
	Timeout        string            `json:"timeout,omitempty" jsonschema:"per-hypothesis timeout, a duration such as 90s or 5m (default 10m)"`
	Jobs           int               `json:"jobs,omitempty" jsonschema:"how many hypotheses run at once (default: the number of CPUs)"`
	Apply          bool              `json:"apply,omitempty" jsonschema:"write the winner's files into the checkout after the run (refused, changing nothing, if a target changed while the run went on). Default false: the checkout is left as it is"`
	Mode           string            `json:"mode,omitempty" jsonschema:"sandbox mode: auto (default: overlay where the machine allows it, else copy), overlay, copy (each hypothesis in its own copy of the workspace, in parallel), or inplace (one hypothesis at a time in the checkout, restored after each)"`
	Baseline       bool              `json:"baseline,omitempty" jsonschema:"add a hypothesis named baseline with no edits, unless there is one"`
	Env            map[string]string `json:"env,omitempty" jsonschema:"extra environment variables for the command"`
	Net            string            `json:"net,omitempty" jsonschema:"network of the command: private (default in overlay mode: a network namespace per hypothesis with its own loopback, so hypotheses can bind the same port and reach no host or sibling server; HTTP(S) out through shadow's proxy), isolated (loopback only, nothing out) or host (the host's network, as copy and in-place modes always have)"`
	HostPorts      []int             `json:"host_ports,omitempty" jsonschema:"host localhost TCP ports (a database the suite needs) each hypothesis reaches at the same port on its own 127.0.0.1 under net private, as --host-port"`
	Memory         string            `json:"memory,omitempty" jsonschema:"each hypothesis's memory cap, e.g. 2G (overlay mode with a memory cgroup; refused where none can be set), as --memory"`
	Tmp            string            `json:"tmp,omitempty" jsonschema:"/tmp and /var/tmp of the command: private (default in overlay mode: a fresh tmpfs per hypothesis) or shared (the host's)"`
	Writable       []string          `json:"writable,omitempty" jsonschema:"overlay mode: absolute directories outside the workspace the command may write (everything else outside the workspace and $HOME is read-only), each overlaid per hypothesis and thrown away; refused inside the workspace or holding shadow's state dir, as --writable"`
	JUnit          string            `json:"junit,omitempty" jsonschema:"a JUnit XML file the command writes (relative to its directory); its test counts win over what the output says"`
	Keep           bool              `json:"keep,omitempty" jsonschema:"keep what each command wrote (overlay mode); shadow_show RUN/HYP lists it"`
	Freeze         bool              `json:"freeze,omitempty" jsonschema:"run every hypothesis on a copy of the source files taken at the start, so edits made meanwhile do not reach the run (overlay mode)"`
	Confirm        int               `json:"confirm,omitempty" jsonschema:"rerun the baseline and the leading candidate this many more times (at most 3) before naming a winner: a flaky pass cannot win"`
	TestPaths      []string          `json:"test_paths,omitempty" jsonschema:"globs of the test files: a candidate that changes one cannot win unless allow_test_edits"`
	AllowTestEdits bool              `json:"allow_test_edits,omitempty" jsonschema:"let a candidate that changes the tests, or runs fewer of them, win"`
	Remote         []string          `json:"remote,omitempty" jsonschema:"run the hypotheses on these Linux nodes over SSH instead of here (as the CLI's --remote): each an ssh destination as the user's ~/.ssh/config knows it (a Host, or user@host); \"local\" names this machine. The checkout's source files are mirrored to the same path on each node; each hypothesis goes to the next free slot and its result names its node; ranking, records and apply stay here. A node that cannot be reached is reported; when none can, the call fails naming each"`
	RemoteDir      string            `json:"remote_dir,omitempty" jsonschema:"with remote: where the mirror lives on every node when the workspace's own absolute path cannot be had there (an absolute path, as --remote-dir)"`
	Upper          string            `json:"upper,omitempty" jsonschema:"overlay mode: where each hypothesis's writes go: disk (default, under the state dir) or ram (a tmpfs per hypothesis capped at upper_size, for large build outputs; a hypothesis that fills it fails with ENOSPC), as --upper"`
	UpperSize      string            `json:"upper_size,omitempty" jsonschema:"with upper ram: the cap of each hypothesis's tmpfs, e.g. 512M or 2G (default a quarter of RAM), as --upper-size"`
	NoWarm         bool              `json:"no_warm,omitempty" jsonschema:"neither stack nor feed the workspace's warm layer of build outputs (the git-ignored outputs of an earlier run's no-edit baseline), as --no-warm"`

	AllowSuspicious bool   `json:"allow_suspicious,omitempty" jsonschema:"let a candidate whose code the judge-aware scan flagged (sniffing or patching the test runner, exiting 0 at import, an equality that always holds) win"`
	NoCross         bool   `json:"no_cross,omitempty" jsonschema:"do not run the tests candidates add or change (their proposed tests) on each other; by default a passing candidate that fails another's reproduction test ranks below one that fails none"`
	WithTests       bool   `json:"with_tests,omitempty" jsonschema:"with apply: write the winner's proposed tests too; by default only its code is written"`
	Shard           string `json:"shard,omitempty" jsonschema:"run one slice K/N of the hypotheses (K counts from 0), the baselines in every slice, as --shard; shadow merge joins the slices' reports"`
}

// mcpSourceArgs are shadow_run's hypotheses from outside the spec, as the
// CLI's --patch, --ref and --worktrees (internal/hypsrc).
type mcpSourceArgs struct {
	Patches   []string `json:"patches,omitempty" jsonschema:"unified diff files (absolute, or relative to cwd), each one hypothesis named after the file; a directory gives one per *.diff and *.patch in it (as --patch). With patches, refs or worktrees, hypotheses may be left out"`
	Refs      []string `json:"refs,omitempty" jsonschema:"branches or commits, each one hypothesis: its change since its merge base with the checkout's HEAD, applied over the checkout (what a worktree manager's agent branch holds), named after the ref (as --ref)"`
	Worktrees bool     `json:"worktrees,omitempty" jsonschema:"one hypothesis per other worktree of the repository (git worktree list): its commits since the merge base and its uncommitted and untracked work, named after its directory (as --worktrees)"`
}

type mcpHyp struct {
	Name   string    `json:"name" jsonschema:"unique name, 1-64 of A-Z a-z 0-9 . _ -"`
	Base   string    `json:"base,omitempty" jsonschema:"start from a recorded hypothesis instead of the checkout: RUN/HYP, or @last/HYP for the newest run that has HYP"`
	Edits  []mcpEdit `json:"edits,omitempty" jsonschema:"files this hypothesis writes, each replaced whole (or created): what content leaves out is deleted, so for a small change to a large file send a patch instead"`
	Delete []string  `json:"delete,omitempty" jsonschema:"workspace-relative paths this hypothesis deletes"`
	Patch  string    `json:"patch,omitempty" jsonschema:"a unified diff (as git diff prints it) applied on top of the base"`
}

type mcpEdit struct {
	Path          string  `json:"path" jsonschema:"the file, relative to the workspace root, / separated"`
	Content       *string `json:"content,omitempty" jsonschema:"the file's whole new content, as text"`
	ContentBase64 *string `json:"content_base64,omitempty" jsonschema:"the file's whole new content, base64 (for binary files)"`
	File          string  `json:"file,omitempty" jsonschema:"read the new content from this file instead (absolute, or relative to cwd)"`
	Mode          string  `json:"mode,omitempty" jsonschema:"permission bits in octal, e.g. 0755 (default: the existing file's, else 0644)"`
}

// runOnlyArgs are shadow_run's arguments that are not spec fields.
var runOnlyArgs = map[string]bool{"patches": true, "refs": true, "worktrees": true, "cwd": true, "apply": true, "mode": true, "baseline": true, "keep": true, "freeze": true,
	"remote": true, "remote_dir": true, "upper": true, "upper_size": true, "no_warm": true, "with_tests": true}

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
	r := &runRequest{}
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
		str("upper", &upper), str("upper_size", &upperSize), boolean("no_warm", &r.noWarm)} {
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
		if err := remote.ValidNodeName(n.Node); err != nil {
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
	// The call counts as running from here: planning may wait for the
	// workspace lock, and that wait ends with the call or the server.
	ctx, release := s.runContext(ctx)
	defer release()
	p, err := run.NewPlan(ctx, in.spec, in.cwd, run.Options{
		Cwd: in.cwd, Mode: in.mode, Apply: in.apply, WithTests: in.withTests, Baseline: in.baseline, Keep: in.keep, Freeze: in.freeze,
		Remote: in.remote, RemoteDir: in.remoteDir,
		Upper: in.upper, UpperSize: in.upperSize, NoWarm: in.noWarm,
		Notices: s.notices, Version: s.version,
	})
	if err != nil {
		return toolError("%v", err), nil
	}
	prog := startProgress(ctx, req, len(p.Hypotheses()))
	rep, err := p.Run(ctx, prog.sink)
	prog.finish()
	if err != nil {
		return toolError("%v", err), nil
	}
	return toolResult(modelReport(rep, true)), nil
}

// progress turns the run's events into MCP progress notifications (one
// when a hypothesis starts, one when it finishes), when the client sent a
// progress token. The engine's goroutines never wait on the client: the
// notifications queue, and one goroutine sends them in order.
type progress struct {
	sink   func(engine.Event)
	finish func()
}

func startProgress(ctx context.Context, req *mcp.CallToolRequest, hyps int) progress {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return progress{sink: func(engine.Event) {}, finish: func() {}}
	}
	total := float64(2 * hyps)
	queue := make(chan *mcp.ProgressNotificationParams, 2*hyps+8)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := range queue {
			_ = req.Session.NotifyProgress(ctx, n)
		}
	}()
	step := 0
	sink := func(ev engine.Event) {
		var msg string
		switch ev.Kind {
		case engine.KindHypStarted:
			msg = ev.Hyp + " started"
		case engine.KindHypFinished:
			msg = ev.Hyp + " " + records.ResultLine(ev.Result)
		default:
			return
		}
		step++
		select {
		case queue <- &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(step), Total: total, Message: msg}:
		default: // cannot happen (two events per hypothesis); never block the run
		}
	}
	return progress{sink: sink, finish: func() { close(queue); <-done }}
}

// Bounds of a shadow_run (and shadow_show RUN) result, text and
// structured content alike, so that a run of a dozen chatty candidates
// stays a few tens of thousands of characters: the full output and diff
// are one shadow_show away.
const (
	maxWinnerDiff = 8 << 10 // the winner's diff
	maxOtherDiff  = 1 << 10 // every other hypothesis's diff
	maxLineWidth  = 240     // one line of a trimmed output tail
)

// modelReport is the report sized for a model's context: each failing
// hypothesis's output trimmed to its first error lines and its last lines
// (narrowed to maxLineWidth), with where the full log is; diffs cut past
// maxWinnerDiff (the winner's) and maxOtherDiff with a pointer to
// shadow_show. It returns the text and the sized report, which keeps
// every field of shadow.report/v1 and is the structured content.
func modelReport(rep *engine.Report, footer bool) (string, *engine.Report) {
	failing := 0
	for _, h := range rep.Hypotheses {
		if h.Status != engine.StatusPassed && h.Status != engine.StatusCancelled {
			failing++
		}
	}
	budget := 40 // lines of output per failing hypothesis
	switch {
	case failing > 10:
		budget = 8
	case failing > 4:
		budget = 16
	}
	c := *rep
	c.Hypotheses = make([]*engine.Result, len(rep.Hypotheses))
	for i, h := range rep.Hypotheses {
		hc := *h
		ref := rep.Run + "/" + h.Name
		lines := budget
		if h.Reason != nil { // the reason line names the first error already
			lines = max(budget-2, 4)
		}
		hc.OutputTail = trimLines(h.OutputTail, lines, ref)
		limit := maxOtherDiff
		if rep.Winner != nil && *rep.Winner == h.Name {
			limit = maxWinnerDiff
		}
		hc.Diff = cutDiff(h.Diff, limit, ref)
		c.Hypotheses[i] = &hc
	}
	var b strings.Builder
	engine.WriteText(&b, &c)
	if footer && rep.Run != "" {
		fmt.Fprintf(&b, "\nRecorded as run %s: shadow_show with ref \"%s/NAME\" gives a hypothesis's diff and full output; a later hypothesis can start from one of these with \"base\": \"%s/NAME\" and send only what changes.\n", rep.Run, rep.Run, rep.Run)
	}
	return b.String(), &c
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

// trimLines keeps at most budget lines of s: the first quarter (the
// engine puts error sections first) and the rest from the end, with a note
// where lines were cut.
func trimLines(s string, budget int, ref string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= budget {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(narrow(l) + "\n")
		}
		if s == "" {
			return ""
		}
		return b.String()
	}
	head := budget / 4
	tail := budget - head
	cut := len(lines) - head - tail
	var b strings.Builder
	for _, l := range lines[:head] {
		b.WriteString(narrow(l) + "\n")
	}
	fmt.Fprintf(&b, "[… %d line(s) trimmed here; the full output is in the log named above, or shadow_show %s]\n", cut, ref)
	for _, l := range lines[len(lines)-tail:] {
		b.WriteString(narrow(l) + "\n")
	}
	return b.String()
}

// narrow cuts a line past maxLineWidth runes.
func narrow(l string) string {
	if r := []rune(l); len(r) > maxLineWidth {
		return string(r[:maxLineWidth]) + "…"
	}
	return l
}
