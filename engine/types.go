// Package engine validates a spec, runs its hypotheses through a Sandbox,
// ranks the results and reports them. It knows nothing of terminals or of
// how a sandbox isolates a run: main wires a Sandbox (overlay or in-place)
// and consumers of the event stream (headless printers, the TUI, the
// snapshot store).
package engine

import (
	"context"
	"io"
	"os"
	"sort"
	"time"
)

// Spec is the JSON document of docs/spec.md, as decoded (unknown fields are
// refused by the decoder).
type Spec struct {
	// Schema is the "$schema" an editor reads (docs/schema/spec.v1.json,
	// as `shadow init` writes it); shadow ignores its value.
	Schema     string            `json:"$schema,omitempty"`
	Hypotheses []SpecHyp         `json:"hypotheses"`
	Command    []string          `json:"command,omitempty"`
	Timeout    string            `json:"timeout,omitempty"`
	Jobs       int               `json:"jobs,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	Net        string            `json:"net,omitempty"`
	Tmp        string            `json:"tmp,omitempty"`
	// HostPorts: host localhost TCP ports every hypothesis reaches at its
	// own 127.0.0.1 (--host-port); Memory: each hypothesis's memory cap,
	// a size like "2G" (--memory).
	HostPorts []int  `json:"host_ports,omitempty"`
	Memory    string `json:"memory,omitempty"`
	JUnit     string `json:"junit,omitempty"`
	// Writable are directories outside the workspace the command may
	// write, each overlaid per hypothesis and thrown away (--writable).
	Writable []string `json:"writable,omitempty"`
	// TestPaths are globs naming the test files (nil: DefaultTestPaths);
	// with the runners' configuration and the common files they are the
	// judge a candidate must not change (docs/report.md).
	TestPaths      []string `json:"test_paths,omitempty"`
	AllowTestEdits bool     `json:"allow_test_edits,omitempty"`
	// NoCross turns the cross phase off: candidates' proposed tests do
	// not run on each other (--no-cross; cross.go).
	NoCross bool `json:"no_cross,omitempty"`
	// Shard runs one slice of the hypotheses (--shard K/N, docs/cli.md):
	// "K/N", or "/N" with the index from the environment.
	Shard string `json:"shard,omitempty"`
	// AllowSuspicious lets a candidate whose code the judge-aware scan
	// flagged win (--allow-suspicious).
	AllowSuspicious bool `json:"allow_suspicious,omitempty"`
	// Confirm is how many more times the baseline and the leading
	// candidate run before a winner is named (--confirm N).
	Confirm int `json:"confirm,omitempty"`
	// Common is applied to every hypothesis, the baseline included, after
	// its base and before its own edits. Its files are the judge's.
	Common *SpecCommon  `json:"common,omitempty"`
	Remote []RemoteNode `json:"remote,omitempty"`
}

// SpecCommon is the spec-level "common": edits, deletes and a patch every
// hypothesis gets.
type SpecCommon struct {
	Edits  []SpecEdit `json:"edits,omitempty"`
	Delete []string   `json:"delete,omitempty"`
	Patch  string     `json:"patch,omitempty"`
}

// SpecHyp is one hypothesis as written in a spec.
type SpecHyp struct {
	Name   string     `json:"name"`
	Base   string     `json:"base,omitempty"`
	Edits  []SpecEdit `json:"edits,omitempty"`
	Delete []string   `json:"delete,omitempty"`
	Patch  string     `json:"patch,omitempty"`
}

// SpecEdit replaces (or creates) one file. Exactly one of File, Content and
// ContentBase64 is set.
type SpecEdit struct {
	Path          string  `json:"path"`
	File          string  `json:"file,omitempty"`
	Content       *string `json:"content,omitempty"`
	ContentBase64 *string `json:"content_base64,omitempty"`
	Mode          string  `json:"mode,omitempty"`
}

// Hypothesis is a validated hypothesis: the final content of every file it
// changes, relative to the checkout, and the paths it deletes.
//
// Files and Deletes are the hypothesis's own (its base chain and its own
// edits): what is recorded, diffed and applied. Common and CommonDeletes
// are the spec's "common" part it runs with but does not propose (the
// judge's files): the sandbox gets both (Job.Hyp is WithCommon), --apply
// and the records only the own part.
type Hypothesis struct {
	Name          string
	Files         []File   // sorted by Path
	Deletes       []string // sorted; workspace-relative, '/'-separated
	Common        []File   // sorted by Path; never also in Files
	CommonDeletes []string // sorted; never also in Deletes
	// replacedCommon and replacedCommonDeletes are the common part's
	// version of the paths the hypothesis's own edits replaced: its
	// judged run puts the judge's version back (judged.go).
	replacedCommon        []File
	replacedCommonDeletes []string
}

// IsBaseline reports whether the hypothesis changes nothing of its own
// (the spec's common part does not count).
func (h Hypothesis) IsBaseline() bool { return len(h.Files) == 0 && len(h.Deletes) == 0 }

// WithCommon is what the command must see: the common files and deletes
// merged with the hypothesis's own, in Files and Deletes, and Common and
// CommonDeletes empty. The two sets never share a path (Resolve keeps the
// hypothesis's own version of a path it also got from common).
func (h Hypothesis) WithCommon() Hypothesis {
	if len(h.Common) == 0 && len(h.CommonDeletes) == 0 {
		return h
	}
	out := Hypothesis{Name: h.Name}
	out.Files = append(append(out.Files, h.Files...), h.Common...)
	out.Deletes = append(append(out.Deletes, h.Deletes...), h.CommonDeletes...)
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Path < out.Files[j].Path })
	sort.Strings(out.Deletes)
	return out
}

// File is one file a hypothesis writes.
type File struct {
	Path    string // workspace-relative, '/'-separated
	Content []byte
	Mode    os.FileMode // permission bits (and nothing else)
}

// Job is what a Sandbox runs: one hypothesis's command in a view of the
// workspace that holds the hypothesis's files.
type Job struct {
	Workspace string // absolute path of the checkout
	Subdir    string // '/'-separated, relative to Workspace; "" for the root
	Hyp       Hypothesis
	Command   []string
	Env       []string  // complete environment of the command
	Net       string    // "host" or "isolated"
	Tmp       string    // "shared" or "private"
	Output    io.Writer // receives stdout and stderr, merged
	// Collect names files (workspace-relative) the command may write that
	// the engine wants to read after the command ends, e.g. a JUnit report.
	Collect []string
	// KeepDir, when set, is where the sandbox leaves what the command wrote
	// (overlay: the upper directory) instead of removing it.
	KeepDir string
	// Lowers are read-only directories stacked above the workspace, the
	// first topmost (overlay: lowerdir=L1:L2:WORKSPACE). --freeze puts a
	// copy of the source files there, so edits to the checkout during the
	// run do not reach it.
	Lowers []string
}

// Outcome is what a Sandbox reports about one finished Job. When ctx ends
// first, the sandbox must have ended every process of the job before it
// returns (the engine decides whether that was a timeout or a cancel).
type Outcome struct {
	ExitCode  int               // the command's exit status; -1 when killed by a signal
	Signal    string            // the signal that ended it, if any
	Collected map[string][]byte // contents of Job.Collect entries the command wrote
	// Warnings are things the user must hear about even when the command
	// passed, e.g. an in-place run that left a concurrently edited file
	// alone; the engine appends them to the result's error.
	Warnings []string
	// Changed lists the workspace-relative paths the command itself
	// created, changed or deleted during the run (overlay: the entries of
	// the upper dir that the hypothesis did not write; copy mode: by
	// comparison). nil when the sandbox cannot tell. The engine uses it to
	// see a command that rewrites the judge (tests, runner config) at run
	// time (edits_tests, docs/report.md).
	Changed []string
	// Outside lists what the command wrote outside the workspace, in the
	// places the sandbox let it write there and threw away afterwards
	// (overlay: $HOME, --writable paths, caches); nil when the sandbox
	// cannot tell. The engine classifies and caps it (outside.go).
	Outside []OutsideWrite
	// PeakMemoryBytes and Limits: the job's peak memory where the
	// sandbox could read it, and what it enforced (Result's fields).
	PeakMemoryBytes *int64
	Limits          *HypLimits
	// Node is the remote node the job ran on ("" for this machine) and
	// Mode the sandbox mode it ran in there ("" for the sandbox's Mode()).
	Node string
	Mode string
	// Seal is what sealed the command where the mode has no namespace
	// (copy, in-place: "landlock abi 7"), or "none: ..." with why.
	Seal string
}

// RunHolder is implemented by a sandbox that must hold the workspace for a
// whole run (in-place mode: no other run may read or change the checkout
// between this run's hypotheses). Run calls HoldRun before it reads the
// checkout and the returned release when the report is complete.
type RunHolder interface {
	HoldRun(ctx context.Context) (release func())
}

// Sandbox isolates one hypothesis's run: the drivers (overlay, copy,
// inplace, remote) implement it; optional interfaces (optional.go) are
// found with As.
type Sandbox interface {
	// Mode is the driver's mode, as reported.
	Mode() Mode
	// Parallel reports whether several jobs may run at once.
	Parallel() bool
	// Run runs the job to completion or until ctx ends. An error means the
	// sandbox itself failed (not the command); it is reported as status
	// "error" with the error's text.
	Run(ctx context.Context, job Job) (Outcome, error)
}

// Status values of a hypothesis result.
const (
	StatusQueued    = "queued"
	StatusRunning   = "running"
	StatusPassed    = "passed"
	StatusFailed    = "failed"
	StatusTimedOut  = "timed_out"
	StatusError     = "error"
	StatusCancelled = "cancelled"
)

// Tests is the test summary of one hypothesis (nil when no runner was
// recognised).
type Tests struct {
	Framework string `json:"framework"`
	Passed    int    `json:"passed"`
	Failed    int    `json:"failed"`
	Skipped   int    `json:"skipped"`
	// Unit is "package" when the counts are of packages, not tests (plain
	// `go test ./...` prints only package lines); "" means tests.
	Unit string `json:"unit,omitempty"`
}

// Result is one hypothesis in the report (shadow.report/v1).
type Result struct {
	Name         string   `json:"name"`
	Rank         int      `json:"rank"`
	Status       string   `json:"status"`
	ExitCode     *int     `json:"exit_code"`
	DurationMS   int64    `json:"duration_ms"`
	Tests        *Tests   `json:"tests"`
	Fixed        []string `json:"fixed"`
	Broken       []string `json:"broken"`
	ChangedLines int      `json:"changed_lines"`
	Files        []string `json:"files"`
	Deleted      []string `json:"deleted,omitempty"`
	Diff         string   `json:"diff"`
	OutputTail   string   `json:"output_tail"`
	OutputBytes  int64    `json:"output_bytes"`
	Log          string   `json:"log"`
	Error        *string  `json:"error"`

	// Verdict fields (docs/report.md). EditsTests: judge files the hypothesis
	// proposes to write or delete, or that its command changed. LostTests:
	// tests the baseline ran that this one did not (null without a baseline
	// with counts). Disqualified: why a passing candidate may not win.
	// TiesWith: passing candidates with the same per-test outcomes. Runs,
	// Passes, Flaky: --confirm reruns (Flaky null when Runs is 1).
	EditsTests   []string `json:"edits_tests"`
	LostTests    *int     `json:"lost_tests"`
	Disqualified *string  `json:"disqualified"`
	TiesWith     []string `json:"ties_with"`
	Runs         int      `json:"runs"`
	Passes       int      `json:"passes"`
	Flaky        []string `json:"flaky"`
	// Node is the remote node that ran it ("" for this machine); Mode the
	// sandbox mode it ran in.
	Node string `json:"node"`
	Mode string `json:"mode"`

	// Batch 3 fields (docs/report.md): optional, null where not measured,
	// so old readers of shadow.report/v1 are unaffected.
	//
	// Reason: one line, the first error the output names (a compile
	// error, the failing assertion, a collection error, a timeout and what
	// it was doing); null for a pass.
	Reason *string `json:"reason"`
	// Outside: what the hypothesis wrote outside the workspace ($HOME,
	// --writable paths, a shared /tmp), capped; null where not measured.
	Outside []OutsideWrite `json:"outside"`
	// Suspicious: why the candidate looks like it games the judge or
	// persists outside its shadow (judge-aware code with file and line, a
	// write to a persistence path). Like Disqualified, a suspicious pass
	// never wins unless --allow-suspicious.
	Suspicious *string `json:"suspicious"`
	// Tampered: the evidence that the run's verdict was forged (the canary
	// passed or vanished, tests the judge does not have). Never wins.
	Tampered *string `json:"tampered"`
	// JudgeEdits: the judge files (tests, runner configuration, common
	// files) the candidate changed; ProposedTests: the tests it adds or
	// changes, each with whether it reproduces the bug; Cross: the other
	// candidates' reproductions it passed and failed.
	JudgeEdits    []string       `json:"judge_edits"`
	ProposedTests []ProposedTest `json:"proposed_tests"`
	Cross         *Cross         `json:"cross"`
	// PeakMemoryBytes: the hypothesis's peak memory where the sandbox can
	// read it; Limits: what the sandbox enforced.
	PeakMemoryBytes *int64     `json:"peak_memory_bytes"`
	Limits          *HypLimits `json:"limits"`
	// RankKey: what the ranking sorted this result on (shard.go).
	RankKey *RankKey `json:"rank_key"`
	// Seal: what sealed the command in copy and in-place modes ("landlock
	// abi 7"; "none: guards against accidents only (why)"); absent in
	// overlay mode, whose namespaces are the seal.
	Seal string `json:"seal,omitempty"`

	// Per-test outcomes, used for fixed/broken; not part of the JSON.
	passedTests map[string]bool
	failedTests map[string]bool
	// What Rank works from (not part of the JSON; copies sent with
	// hyp_finished carry them, so a consumer may Rank during the run):
	// judgeProposed, the judge files among the hypothesis's own writes and
	// deletes; judgeChanged, those its command changed at run time;
	// allowTestEdits from the run; attempts, one per run (--confirm);
	// confirmFailed, a candidate that failed a rerun; tier, Rank's.
	judgeProposed  []string
	judgeChanged   []string
	allowTestEdits bool
	// allowSuspicious: --allow-suspicious, a suspicious or tampered pass
	// keeps its tier.
	allowSuspicious bool
	attempts        []attempt
	confirmFailed   bool
	confirmed       bool
	tier            int
	// judged: the verdict came from the candidate's code under the
	// checkout's judge (judged.go); codeLines, the changed lines of that
	// code part, break ties in its place of ChangedLines.
	judged    bool
	codeLines int

	// suites: each runner's part when the command ran several
	// (suites.go); deselected, the tests the runner said it left out.
	suites     []suite
	deselected int
	// canary: what the run showed of the tamper canary (canary.go).
	canary *canaryObs
}

// Report is the whole run (shadow.report/v1). Hypotheses are in rank order.
type Report struct {
	Schema     string    `json:"schema"`
	Run        string    `json:"run"`
	Workspace  string    `json:"workspace"`
	Subdir     string    `json:"subdir"`
	Command    []string  `json:"command"`
	Mode       string    `json:"mode"`
	StartedAt  time.Time `json:"started_at"`
	DurationMS int64     `json:"duration_ms"`
	Winner     *string   `json:"winner"`
	// Shard: this report is one shard of a run (--shard K/N); MergedFrom:
	// this report is `shadow merge` of the shards with these indexes.
	// Both null otherwise.
	Shard      *ShardInfo `json:"shard"`
	MergedFrom []int      `json:"merged_from"`
	Stale      bool       `json:"stale"`
	StalePaths []string   `json:"stale_paths"`
	Applied    []string   `json:"applied"`
	ApplyError string     `json:"apply_error,omitempty"`
	Cancelled  bool       `json:"cancelled,omitempty"`
	// Error: why the run stopped before every hypothesis had run (every
	// remote node failed); those it never started have runs 0. Exit 3.
	Error string `json:"error,omitempty"`
	// Frozen: the run saw a copy of the source files taken at its start
	// (--freeze); stale_paths then lists only the paths created since,
	// which are the only changes that could reach it.
	Frozen bool `json:"frozen,omitempty"`
	// BaselineFlaky names the baseline's tests whose outcome changed across
	// its --confirm reruns (null without reruns).
	BaselineFlaky []string `json:"baseline_flaky"`
	// CopyMS and CopyBytes: what making the copies cost (copy mode only).
	CopyMS    *int64 `json:"copy_ms"`
	CopyBytes *int64 `json:"copy_bytes"`
	// Seal: what sealed the commands of a copy or in-place run (the
	// hypotheses' common seal: "landlock abi 7", or "none: ..." and why);
	// "mode" stays ModeCopy or ModeInplace, so readers comparing it keep working.
	Seal string `json:"seal,omitempty"`
	// Sync: the mirror sync to each remote node (--remote only).
	Sync []NodeSync `json:"sync,omitempty"`
	// CPUs and Load describe the machine the run was planned on, so a slow
	// result can be read against a loaded machine.
	CPUs int     `json:"cpus,omitempty"`
	Load float64 `json:"load,omitempty"`
	// Warm is the warm build-output layer of the workspace (overlay and
	// copy modes; absent in in-place and remote runs and with --no-warm).
	Warm       *WarmLayer `json:"warm,omitempty"`
	Hypotheses []*Result  `json:"hypotheses"`

	// MergeNotes: what `shadow merge` found the shards disagree on and
	// how the merge read it (a proposed test the checkout failed in one
	// shard and passed in another); omitted when none.
	MergeNotes []string `json:"merge_notes,omitempty"`
}

// WarmLayer is what a run did with the workspace's warm layer: the
// git-ignored build outputs of an earlier no-edit baseline, stacked just
// above the workspace under every hypothesis.
type WarmLayer struct {
	// Used: the layer was stacked; Generation, Files and Bytes are then
	// the generation's (0 when none was).
	Used       bool  `json:"used"`
	Generation int   `json:"generation"`
	Files      int   `json:"files"`
	Bytes      int64 `json:"bytes"`
	// Updated is the generation this run's baseline made current (0: none,
	// Note says why).
	Updated int    `json:"updated"`
	Note    string `json:"note,omitempty"`
}

// NodeSync is one remote node's mirror sync before a run.
type NodeSync struct {
	Node  string `json:"node"`
	MS    int64  `json:"ms"`
	Bytes int64  `json:"bytes"`
}

// Schemas of the documents shadow writes.
const (
	ReportSchema = "shadow.report/v1"
	EventSchema  = "shadow.event/v1"
)

// Event kinds.
const (
	KindRunStarted  = "run_started"
	KindHypStarted  = "hyp_started"
	KindOutput      = "output"
	KindTests       = "tests"
	KindHypFinished = "hyp_finished"
	KindRunFinished = "run_finished"
	// The cross phase's jobs (cross.go): one per target (hyp: a candidate,
	// or the checkout, named as the baseline hypothesis or "checkout") and
	// group of proposers (from), with its command; cross_finished carries
	// the job's counts and a line saying how it ended. Consumers that know
	// only the kinds above skip them.
	KindCrossStarted  = "cross_started"
	KindCrossFinished = "cross_finished"
)

// Event is one line of the shadow.event/v1 stream.
type Event struct {
	Schema string    `json:"schema"`
	Seq    int64     `json:"seq"`
	Time   time.Time `json:"time"`
	Run    string    `json:"run"`
	Kind   string    `json:"kind"`

	// run_started
	Hypotheses []string `json:"hypotheses,omitempty"`
	Mode       string   `json:"mode,omitempty"`
	Command    []string `json:"command,omitempty"`
	Workspace  string   `json:"workspace,omitempty"`
	Jobs       int      `json:"jobs,omitempty"`

	// hyp_started, output, tests, hyp_finished
	Hyp string `json:"hyp,omitempty"`
	// Attempt numbers the --confirm reruns of a hypothesis: absent (0) for
	// its first run, 2, 3... for each rerun, whose hyp_started, output,
	// tests and hyp_finished events carry it. A rerun's hyp_finished holds
	// the hypothesis's result so far (runs, passes, flaky), replacing the
	// earlier one.
	Attempt int     `json:"attempt,omitempty"`
	Text    string  `json:"text,omitempty"`
	Tests   *Tests  `json:"tests,omitempty"`
	Result  *Result `json:"result,omitempty"`
	// From: cross_started, cross_finished: the candidates whose proposed
	// tests the job runs.
	From []string `json:"from,omitempty"`

	// run_finished
	Report *Report `json:"report,omitempty"`
}

// OutsideWrite is one path a hypothesis created, changed or deleted outside
// the workspace (report field "outside").
type OutsideWrite struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
	// Kind: "created", "changed" or "deleted".
	Kind string `json:"kind"`
}

// ProposedTest is a test a candidate adds or changes (report field
// "proposed_tests"). Reproduces: it fails on the baseline and passes on
// its own candidate (null where the cross phase did not run).
type ProposedTest struct {
	Path       string `json:"path"`
	Test       string `json:"test"`
	Reproduces *bool  `json:"reproduces"`
}

// Cross is how a candidate fared on the other candidates' reproductions.
type Cross struct {
	Passed []CrossRef `json:"passed"`
	Failed []CrossRef `json:"failed"`
}

// CrossRef names one reproduction: the candidate that proposed it and the
// test's name.
type CrossRef struct {
	From string `json:"from"`
	Test string `json:"test"`
}

// HypLimits is what the sandbox enforced on one hypothesis (report field
// "limits"); zero fields were not enforced.
type HypLimits struct {
	// Pids: the most processes/threads at once; MemoryBytes: the memory
	// cap; OOMScoreAdj: the oom_score_adj its processes ran with.
	Pids        int64 `json:"pids,omitempty"`
	MemoryBytes int64 `json:"memory_bytes,omitempty"`
	OOMScoreAdj int   `json:"oom_score_adj,omitempty"`
	// Via: how they were enforced ("cgroup v2", "cgroup v1", "rlimit").
	Via string `json:"via,omitempty"`
}
