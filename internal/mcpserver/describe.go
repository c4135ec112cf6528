package mcpserver

import (
	"github.com/google/jsonschema-go/jsonschema"
)

// fieldDocs describes the output fields of the tools (shadow.report/v1 as
// docs/report.md words it, and the log, show and apply documents) by JSON
// name: the schemas are inferred from the Go types, which carry no
// descriptions, and a client shows the model only what the schema says. A
// name means the same wherever it appears. describe fills the schemas;
// TestOutputSchemasHaveDescriptions fails when a new field has none.
var fieldDocs = map[string]string{
	"schema":            "the document's schema name and version, e.g. shadow.report/v1",
	"run":               "the run's id (a timestamp and a random suffix): RUN in RUN/HYP references",
	"workspace":         "the checkout's absolute path (the git top-level of the call's cwd)",
	"subdir":            "where the command ran, relative to the workspace (\"\" for its root)",
	"command":           "the test command, as an argument vector",
	"mode":              "the sandbox mode: overlay (parallel copy-on-write shadows), copy (a copy each), inplace (one at a time in the checkout, restored)",
	"started_at":        "when it started (RFC 3339)",
	"duration_ms":       "how long it took, in milliseconds",
	"winner":            "the name of the best hypothesis that passed and may win (not disqualified, suspicious or tampered), or null: none did",
	"stale":             "the checkout changed while the run went on: results may not match it",
	"stale_paths":       "the checkout paths that changed during the run",
	"hypotheses":        "the hypotheses, best first (rank order)",
	"applied":           "the checkout paths written (and deleted), in order",
	"apply_error":       "why the winner was not applied although apply was asked (a target changed meanwhile)",
	"cancelled":         "the run was interrupted before every hypothesis finished: it names no winner",
	"error":             "what went wrong: for a run, why it stopped; for a hypothesis, why it could not run or what it was killed by",
	"baseline_flaky":    "tests that changed outcome across the baseline's reruns (--confirm): they count as neither fixed nor broken",
	"copy_ms":           "copy and remote modes: milliseconds spent copying the workspace, or null",
	"copy_bytes":        "copy and remote modes: bytes copied, or null",
	"frozen":            "the run used a copy of the source files taken at its start (freeze)",
	"seal":              "how the command was confined (overlay's namespaces, Landlock), in a word",
	"sync":              "remote mode: per node, how long mirroring the checkout took and how much it sent",
	"cpus":              "the machine's CPU count when the run started",
	"load":              "the machine's 1-minute load average when the run started",
	"warm":              "the warm layer of build outputs an earlier baseline left, stacked under every hypothesis",
	"used":              "the warm layer was stacked under the hypotheses",
	"generation":        "the warm layer's generation (it grows each time a clean baseline feeds it)",
	"files":             "the workspace-relative files it writes (for a hypothesis); a count of files (for the warm layer)",
	"bytes":             "a size in bytes",
	"updated":           "files the baseline added to or changed in the warm layer",
	"note":              "a remark for people: why something was not done, or what it means",
	"node":              "remote mode: the ssh destination it ran on",
	"ms":                "milliseconds",
	"shard":             "this run is one slice of a sharded run (--shard K/N), or null",
	"index":             "this slice's number K (from 0)",
	"count":             "how many slices N",
	"spec_sha256":       "SHA-256 of the spec every slice must share",
	"base":              "the recorded hypothesis this one started from (RUN/HYP), or the slices' common base commit",
	"index_env":         "the environment variable the slice number came from",
	"merged_from":       "the slice numbers a merged report joins",
	"name":              "the hypothesis's name",
	"status":            "passed, failed, timed_out, error or cancelled (queued or running while a run goes on)",
	"exit_code":         "the command's exit status, or null when it did not exit by itself",
	"tests":             "test counts the runner's output gave, or null when none were recognised",
	"framework":         "the test runner the counts came from (go, pytest, vitest, jest, cargo, ...)",
	"passed":            "tests that passed",
	"failed":            "tests that failed",
	"skipped":           "tests skipped",
	"total":             "how many in all",
	"unit":              "what the counts count when not tests (e.g. packages)",
	"fixed":             "tests the baseline failed that this hypothesis passes",
	"broken":            "tests the baseline passed that this hypothesis fails",
	"changed_lines":     "lines the hypothesis's diff changes (fewer ranks higher among equals)",
	"diff":              "the hypothesis's unified diff against the checkout",
	"deleted":           "workspace-relative paths the hypothesis deletes",
	"output_tail":       "the end of the command's output and every error section before it (ANSI stripped); the full output is in log",
	"output_bytes":      "bytes the command printed in all",
	"log":               "path of the full output log (shadow_show RUN/HYP reads it)",
	"reason":            "why it did not pass, in one line: the first error its output names (a missing command, a collection or compile error, the failing test and its assertion, a panic), or what a timeout was doing",
	"disqualified":      "why a passing hypothesis may not win: it changed a test, the runner's config or a common file, or ran fewer tests than the baseline",
	"suspicious":        "why it looks like it games the judge or persists outside its shadow (file and line); it may not win",
	"tampered":          "evidence that its verdict was forged (the canary passed or vanished); it never wins",
	"edits_tests":       "the test files among what it changes",
	"lost_tests":        "baseline tests this hypothesis did not run",
	"rank":              "its place, 1 the best",
	"tier":              "its ranking tier: passed, disqualified, failed with counts, without counts, timed out, error, cancelled",
	"rank_key":          "what ranked it within its tier",
	"ties_with":         "hypotheses it ties with on every ranking key",
	"flaky":             "tests that changed outcome across its reruns",
	"runs":              "how many times it ran (more than 1 with confirm)",
	"passes":            "how many of its runs passed",
	"confirmed":         "it passed every confirm rerun",
	"confirm_failed":    "it failed a confirm rerun, so it cannot win",
	"cross_failed":      "how many other candidates' proposed tests it failed",
	"lines":             "changed lines used for ranking",
	"outcomes":          "its per-test outcomes, for merging slices",
	"test_outcomes":     "its per-test outcomes before the cross phase's part, for merging slices",
	"cross_outcomes":    "a slice's cross-phase outcomes (pass or fail) of every candidate's proposed tests, for merging slices",
	"checkout":          "the outcome of each candidate's proposed tests on the unchanged checkout, by candidate and test",
	"targets":           "the outcome of each candidate's proposed tests on this slice's hypotheses, by hypothesis, candidate and test",
	"merge_notes":       "what the merged slices disagreed on and how the merge read it",
	"outside":           "what it wrote outside the workspace ($HOME, writable paths, a shared /tmp), with sizes; null where not measured",
	"path":              "a path (workspace-relative for the checkout's files)",
	"kind":              "what kind of path or write it is",
	"judge_edits":       "the judge files it changed (tests, runner configuration, common files): not applied without with_tests",
	"proposed_tests":    "the tests it adds or changes, each with whether it reproduces the bug on the checkout",
	"test":              "a test's name",
	"reproduces":        "the test fails on the unchanged checkout (it shows the bug), or null when not known",
	"cross":             "the other candidates' proposed tests it passed and failed",
	"from":              "the candidate whose proposed test this is",
	"hyp":               "a hypothesis's name",
	"peak_memory_bytes": "its peak memory where the sandbox could read it, or null",
	"limits":            "what the sandbox enforced on it (pids, memory, oom_score_adj), or null",
	"pids":              "its process limit",
	"memory_bytes":      "its memory limit in bytes",
	"oom_score_adj":     "the oom_score_adj its processes had (the kernel kills them before shadow)",
	"via":               "how the limits were set (cgroup v2, v1, rlimit)",
	"state":             "running, finished or interrupted",
	"result":            "the hypothesis's result, as in the report",
	"output":            "the last lines of its full output",
	"output_trimmed":    "earlier lines of the output are left out (the full log is at result.log)",
	"warning":           "the record failed its integrity check: what is shown comes from the verified parts only",
	"dry_run":           "nothing was written: a dry run",
}

// describe fills in, recursively, the description of every property of
// sc that has none, from fieldDocs.
func describe(sc *jsonschema.Schema) *jsonschema.Schema {
	if sc == nil {
		return sc
	}
	for k, p := range sc.Properties {
		if p.Description == "" {
			p.Description = fieldDocs[k]
		}
		describe(p)
	}
	describe(sc.Items)
	for _, a := range sc.AnyOf {
		describe(a)
	}
	return sc
}

// outputSchema is a tool's output schema, inferred from T and described.
// Unlike the input schemas it keeps "null" in the types where a result
// carries it (no winner, no counts): see nullWhereCarried.
func outputSchema[T any]() *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	nullWhereCarried(sc)
	return describe(sc)
}

// nullWhereCarried drops "null" from the types of the properties that
// never hold it: the inference writes ["null", T] for every slice and
// pointer, but a property it leaves out of "required" is an omitempty one
// (encoding/json omits a nil slice or pointer rather than writing null),
// and a required array is never nil in these documents (each is made
// non-nil where it is built: TestRequiredArraysAreNeverNull). A required
// pointer (winner, a hypothesis's counts) keeps its null. One type name
// is a line where ["null", T] pretty-prints as four, in a tools/list
// every session pays for.
func nullWhereCarried(sc *jsonschema.Schema) {
	if sc == nil {
		return
	}
	required := map[string]bool{}
	for _, r := range sc.Required {
		required[r] = true
	}
	for name, p := range sc.Properties {
		if !required[name] || p.Items != nil {
			p.Types = dropNull(p.Types)
			if len(p.Types) == 1 {
				p.Type, p.Types = p.Types[0], nil
			}
		}
		nullWhereCarried(p)
	}
	nullWhereCarried(sc.Items)
}

func dropNull(types []string) []string {
	var keep []string
	for _, t := range types {
		if t != "null" {
			keep = append(keep, t)
		}
	}
	return keep
}
