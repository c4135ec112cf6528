// Package report is shadow's contract as plain data: the shadow.report/v1
// document and the shadow.event/v1 stream (docs/report.md, docs/events.md,
// docs/schema), with the text writer and the unified diff that fill them.
// It imports no other engine package, and its types have no unexported
// fields: what a reader of the JSON gets is all there is.
package report

import "time"

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
	// RankKey: what the ranking sorted this result on (docs/report.md, "rank_key").
	RankKey *RankKey `json:"rank_key"`
	// Seal: what sealed the command in copy and in-place modes ("landlock
	// abi 7"; "none: guards against accidents only (why)"); absent in
	// overlay mode, whose namespaces are the seal.
	Seal string `json:"seal,omitempty"`
	// TestsFrom: how it fared on the tests written before the candidates
	// (the report's tests_from); null without them, or where its run named
	// none of them.
	TestsFrom *TestsFromOutcome `json:"tests_from"`
	// Contrast: what it does that no other passing candidate does (files,
	// runner configuration, introspection); null for a baseline and where
	// no other candidate passed.
	Contrast *Contrast `json:"contrast"`
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
	Warm *WarmLayer `json:"warm,omitempty"`
	// TestsFrom: the tests written before the candidates were seen
	// (--tests-from), the judge's on every hypothesis; null without.
	TestsFrom  *TestsFromInfo `json:"tests_from"`
	Hypotheses []*Result      `json:"hypotheses"`

	// MergeNotes: what `shadow merge` found the shards disagree on and
	// how the merge read it (a proposed test the checkout failed in one
	// shard and passed in another); omitted when none.
	MergeNotes []string `json:"merge_notes,omitempty"`

	// TestCollection: which files the run took for the runner's tests
	// before any candidate ran, and how it knew (docs/report.md, "The
	// judge"); null when the command's runner is not one it asks.
	TestCollection *TestCollection `json:"test_collection"`

	// Judged and AllowSuspicious are what the text writer needs of the
	// run's flags to mark a row (WriteText): Judged, candidates were judged
	// by their code under the checkout's judge (no --allow-test-edits,
	// docs/report.md "Ranking", the judge); AllowSuspicious, --allow-suspicious.
	// shadow.report/v1 does not carry them: both are false in a report read
	// back from JSON, and nothing ranks on them.
	Judged          bool `json:"-"`
	AllowSuspicious bool `json:"-"`
}

// TestCollection is what the command's runner said its test files are,
// on the checkout: Via "collection" (pytest's --collect-only, run sealed),
// "config" (read from its configuration), "command" (unittest's
// discovery arguments) or "rule" (the runner's fixed or default rule).
// Files are those it named (workspace-relative), Globs the patterns that
// name new files too ("DIR: GLOB" when relative to DIR); Note, why the
// runner's own collection was not had where it was tried.
type TestCollection struct {
	Runner string   `json:"runner"`
	Via    string   `json:"via"`
	Files  []string `json:"files"`
	Globs  []string `json:"globs"`
	Note   string   `json:"note,omitempty"`
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
	// Home is the home layer: the caches builds write outside the
	// workspace (Go's, npm's, pip's, cargo's, XDG_CACHE_HOME), kept from
	// earlier baselines (docs/report.md); omitted when not used.
	Home *HomeLayer `json:"home,omitempty"`
}

// HomeLayer is what a run did with the workspace's home layer.
type HomeLayer struct {
	Used       bool  `json:"used"`
	Generation int   `json:"generation"`
	Files      int   `json:"files"`
	Bytes      int64 `json:"bytes"`
	// BaselineFirst: the layer was cold, so the baseline ran alone first
	// and every other hypothesis stacked what it wrote.
	BaselineFirst bool `json:"baseline_first"`
	// Updated is the generation this run's baseline made current (0:
	// none, Note says why); PromoteMS what taking its caches cost.
	Updated   int   `json:"updated"`
	PromoteMS int64 `json:"promote_ms"`
	// Downloads: the module zips, go.mod files and npm tarballs of any
	// hypothesis that the checkout's go.sum or package-lock.json names,
	// checked by shadow and kept in generation Updated; DownloadsRefused
	// those a hypothesis wrote that no lockfile vouched for (or whose
	// bytes did not match); DownloadsMS what checking and keeping them
	// cost (docs/modes.md, "Checked downloads").
	Downloads        int    `json:"downloads,omitempty"`
	DownloadsRefused int    `json:"downloads_refused,omitempty"`
	DownloadsMS      int64  `json:"downloads_ms,omitempty"`
	Note             string `json:"note,omitempty"`
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
	// The cross phase's jobs (engine/judge/cross.go): one per target (hyp: a candidate,
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
	// Unweighed: reproductions it fails that are only their proposer's
	// claim (nobody else passes them, and it fails them elsewhere than
	// the checkout does): they demote nobody (docs/report.md).
	Unweighed []CrossRef `json:"unweighed,omitempty"`
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
