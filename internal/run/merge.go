package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/engine/judge"
	"github.com/shadow-dev/shadow/snap"
)

// MergeApply is `shadow merge --apply` (and shadow_merge's apply): the
// merged report's winner written into this checkout as `shadow apply`
// writes a recorded one, and the merged report recorded like a run.
type MergeApply struct {
	// Spec is the spec the shards ran, SpecDir where its "file" sources
	// are relative to: the winner's files come from it, resolved here.
	Spec    *engine.Spec
	SpecDir string
	// Dir and Cwd find the workspace as a run's -C does.
	Dir, Cwd string
	// WithTests writes the winner's proposed tests too; Force applies over
	// a checkout whose HEAD moved since the shards' commit (every target
	// must still hold what it held there).
	WithTests, Force bool
	MaxEditSize      int64
	Notices          io.Writer
}

// ApplyMerge checks that the spec resolves here to exactly what the
// shards ran (their spec_sha256: names, files and bytes), records the
// merged report as a run of this workspace (its hypotheses' files from the
// spec, the checkout's originals from the shards' commit), and writes the
// winner into the checkout unless something refuses it. shard is the
// shards' common description (any shard's: MergeShards checked they
// agree).
//
// A shard report is input from another machine. It decides which of the
// spec's hypotheses won (its verdicts are trusted as a run's), never what
// is written: the files come from the spec resolved here, the judge part
// left out of them from the same split a run makes (not the report's
// judge_edits, which the record's report is given instead), and what each
// target must hold from the shards' commit in this checkout's git (not
// the report's diff).
//
// Refusals before anything is recorded are *Error: exit 2 when the spec
// is not the shards' (or not valid), 3 when the shards ran outside git or
// their commit is not here. A refused apply (no winner, a moved HEAD
// without Force, a target changed since the shards' commit) is recorded
// with the report's apply_error, as a run's --apply is: exit 1.
func ApplyMerge(merged *engine.Report, shard *engine.ShardInfo, a MergeApply) (*engine.Report, error) {
	if a.Spec == nil {
		return nil, Usage("merge --apply: give the spec the shards ran (--spec FILE): the winner's files are taken from it, not from a shard's report")
	}
	if shard == nil {
		return nil, Usage("merge --apply: the reports are not shards")
	}
	ws, subdir, err := ResolveWorkspace(a.Dir, a.Cwd)
	if err != nil {
		return nil, Usage("%v", err)
	}
	store, err := snap.DefaultStore()
	if err != nil {
		return nil, Env("%v", err)
	}
	bases := &baseResolver{store: store, ws: ws, resolved: map[string]string{}}
	lim := engine.Limits{MaxEditSize: a.MaxEditSize}
	hyps, err := engine.Resolve(a.Spec, a.SpecDir, ws, bases.resolve, lim)
	if err != nil {
		return nil, Usage("merge --apply: %v", err)
	}
	// A run's --baseline adds a hypothesis the spec does not name.
	if len(shard.Hypotheses) == len(hyps)+1 {
		if withB, err := withBaseline(hyps, a.Spec, a.SpecDir, ws, lim); err == nil {
			hyps = withB
		}
	}
	// The spec's tests_from, laid as the shards' plan laid it (a
	// --tests-from flag the shards were given is not in the spec: the
	// digest below then differs, and says so).
	if hyps, _, err = layTestsFrom(context.Background(), nil, "", a.Cwd, a.Spec, a.SpecDir, ws, lim, hyps); err != nil {
		return nil, Usage("merge --apply: %v", err)
	}
	names := hypNames(hyps)
	if strings.Join(names, "\x00") != strings.Join(shard.Hypotheses, "\x00") {
		return nil, Usage("merge --apply: the spec's hypotheses (%s) are not the ones the shards ran (%s): give the spec the shards ran", strings.Join(names, ", "), strings.Join(shard.Hypotheses, ", "))
	}
	unsharded := *a.Spec
	unsharded.Shard = ""
	specJSON, _ := json.MarshalIndent(&unsharded, "", "  ")
	if d := judge.ShardDigest(specJSON, hyps); d != shard.SpecSHA256 {
		return nil, Usage("merge --apply: the spec resolves here to other files than the shards ran (spec_sha256 %.12s here, %.12s in the shards): a \"file\" or \"base\" it names differs on this machine; give the spec and files the shards ran", d, shard.SpecSHA256)
	}
	if shard.Base == "" {
		return nil, Env("merge --apply: the shards ran outside git (their reports name no commit): nothing says what their checkout held, so a change since cannot be detected; nothing written (run unsharded with --apply, or shard a git checkout)")
	}
	orig, err := judge.CommitOriginals(ws, shard.Base, hyps)
	if err != nil {
		return nil, Env("merge --apply: the shards ran on commit %s, which %s cannot read: %v (fetch it)", shard.Base, ws, err)
	}
	judgeEdits := judge.JudgePathsIn(ws, merged.Subdir, shard.Command, hyps, a.Spec.TestPaths, orig)

	rep := *merged
	rep.Workspace, rep.Subdir = ws, subdir
	rep.Applied, rep.ApplyError = []string{}, ""
	rep.Hypotheses = make([]*engine.Result, len(merged.Hypotheses))
	byName := map[string]engine.Hypothesis{}
	for _, h := range hyps {
		byName[h.Name] = h
	}
	for i, r := range merged.Hypotheses {
		c := *r
		// What the record says of each hypothesis's edits is the spec's, as
		// resolved here: a shard report's diff, files and judge_edits are
		// not what shadow apply, show or watch of this record will use.
		c.JudgeEdits = append([]string{}, judgeEdits[r.Name]...)
		c.Diff, c.Files, c.Deleted = judge.HypDiff(byName[r.Name], orig)
		rep.Hypotheses[i] = &c
	}
	now := time.Now()
	rec, err := store.NewRunRetry(snap.Meta{Run: snap.NewRunID(now), Workspace: ws, Subdir: subdir, Command: shard.Command,
		StartedAt: now.UTC(), PID: os.Getpid(), Hypotheses: names, MergedFrom: merged.MergedFrom}, specJSON)
	if err != nil {
		return nil, Env("merge --apply: %v", err)
	}
	rep.Run = rec.ID
	if err := rec.RecordInputs(hyps, bases.refs(a.Spec), orig); err != nil {
		return nil, Env("merge --apply: record the hypotheses' files: %v", err)
	}
	seq := int64(0)
	event := func(ev engine.Event) {
		seq++
		ev.Schema, ev.Seq, ev.Run, ev.Time = engine.EventSchema, seq, rec.ID, time.Now().UTC()
		_ = rec.AppendEvent(ev)
	}
	event(engine.Event{Kind: engine.KindRunStarted, Hypotheses: names, Mode: rep.Mode, Command: shard.Command, Workspace: ws})
	for _, r := range rep.Hypotheses {
		event(engine.Event{Kind: engine.KindHypFinished, Hyp: r.Name, Result: r})
	}

	rep.Applied, rep.ApplyError = applyWinner(ws, &rep, hyps, judgeEdits, orig, shard.Base, a)
	event(engine.Event{Kind: engine.KindRunFinished, Report: &rep})
	if err := rec.Finish(&rep); err != nil {
		fmt.Fprintln(a.notices(), "shadow: record the merged report:", err)
	}
	return &rep, nil
}

// applyWinner writes the winner's files (its code, or all of it with
// WithTests or the spec's allow_test_edits) and returns what it wrote, or
// why it wrote nothing.
func applyWinner(ws string, rep *engine.Report, hyps []engine.Hypothesis, judgeEdits map[string][]string, orig map[string]engine.FileState, base string, a MergeApply) ([]string, string) {
	if rep.Winner == nil {
		return []string{}, "no winner: nothing to apply"
	}
	if head := judge.CheckoutCommit(ws); head != base && !a.Force {
		return []string{}, fmt.Sprintf("the checkout moved since the shards ran: HEAD is %.12s, the shards ran on %.12s; nothing written (check out %.12s, or --force to apply over HEAD: every file it writes must still hold what it held there)", head, base, base)
	}
	var h engine.Hypothesis
	for _, x := range hyps {
		if x.Name == *rep.Winner {
			h = x
		}
	}
	if !a.WithTests && !a.Spec.AllowTestEdits {
		h = judge.CodeOnly(h, judgeEdits[h.Name])
	}
	if h.IsBaseline() || snap.AlreadyApplied(ws, h) {
		return []string{}, ""
	}
	applied, err := engine.ApplyHypothesis(ws, h, orig)
	if applied == nil {
		applied = []string{}
	}
	if err != nil {
		return applied, err.Error()
	}
	return applied, ""
}

func (a MergeApply) notices() io.Writer {
	if a.Notices == nil {
		return io.Discard
	}
	return a.Notices
}
