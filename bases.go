package main

import (
	"context"
	"fmt"
	"os"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// baseResolver is the engine.BaseResolver over the snapshot store: a spec's
// "base" (RUN/HYP or @last/HYP, RUN a unique prefix of a run id) names a
// recorded hypothesis, whose complete file set (its own base's included)
// is the starting point. It remembers what each reference resolved to, so
// the run records it.
type baseResolver struct {
	ws       string
	resolved map[string]string // ref -> RUN/HYP
}

func newBaseResolver(ws string) *baseResolver {
	return &baseResolver{ws: ws, resolved: map[string]string{}}
}

func (b *baseResolver) resolve(ref string) ([]engine.File, []string, error) {
	root, err := snap.DefaultRoot()
	if err != nil {
		return nil, nil, err
	}
	store := snap.Store{Root: root}
	run, hyp, err := store.FindHyp(b.ws, ref)
	if err != nil {
		return nil, nil, err
	}
	h, _, err := store.LoadHyp(b.ws, run, hyp)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", ref, err)
	}
	b.resolved[ref] = run + "/" + hyp
	return h.Files, h.Deletes, nil
}

// refs maps each hypothesis of spec that has a base to its reference.
func (b *baseResolver) refs(spec *engine.Spec) map[string]snap.BaseRef {
	m := map[string]snap.BaseRef{}
	for _, h := range spec.Hypotheses {
		if h.Base != "" {
			m[h.Name] = snap.BaseRef{Ref: h.Base, Resolved: b.resolved[h.Base]}
		}
	}
	return m
}

// recordInputs records what each hypothesis runs with, and the checkout's
// originals of the paths they touch (what `shadow apply` compares with).
// A failure is reported and the run goes on: the record is a convenience,
// the run is what was asked for.
func recordInputs(rec *snap.Run, p *plan, cfg *engine.Config) {
	orig := engine.ReadOriginals(cfg.Workspace, cfg.Hyps)
	if err := rec.RecordInputs(cfg.Hyps, p.bases, orig); err != nil {
		fmt.Fprintln(os.Stderr, "shadow: record the hypotheses' files:", err)
	}
}

func hypNames(hyps []engine.Hypothesis) []string {
	names := make([]string, len(hyps))
	for i, h := range hyps {
		names[i] = h.Name
	}
	return names
}

// frozenSandbox stacks a copy of the source files above the workspace in
// every job (--freeze).
type frozenSandbox struct {
	engine.Sandbox
	dir string
}

func (s frozenSandbox) Run(ctx context.Context, job engine.Job) (engine.Outcome, error) {
	job.Lowers = append([]string{s.dir}, job.Lowers...)
	return s.Sandbox.Run(ctx, job)
}

// startFreeze copies the workspace's source files (mtimes kept) to a
// read-only layer above the workspace for every hypothesis of the run, and
// returns a sink to put first (it narrows the report's stale paths to the
// paths created since, the only changes that can reach a frozen run) and
// the clean-up.
func startFreeze(p *plan, cfg *engine.Config) (func(engine.Event), func(), error) {
	if cfg.Sandbox.Mode() != "overlay" {
		return nil, nil, fmt.Errorf("--freeze needs overlay mode (this run is %s)", cfg.Sandbox.Mode())
	}
	base := sandboxBase(p.store, cfg.Workspace)
	snap.CleanFrozen(base)
	dir := snap.FrozenDir(base, cfg.RunID)
	frozen, _, err := snap.Freeze(cfg.Workspace, dir, engine.SourceFiles(cfg.Workspace, cfg.ScanExclude...))
	if err != nil {
		snap.RemoveFrozen(dir)
		return nil, nil, fmt.Errorf("--freeze: copy the source files: %w", err)
	}
	cfg.Sandbox = frozenSandbox{Sandbox: cfg.Sandbox, dir: dir}
	fix := func(ev engine.Event) {
		if ev.Kind != engine.KindRunFinished || ev.Report == nil {
			return
		}
		r := ev.Report
		r.Frozen = true
		var kept []string
		for _, s := range r.StalePaths {
			if !frozen[s] {
				kept = append(kept, s)
			}
		}
		r.StalePaths = append([]string{}, kept...)
		r.Stale = len(kept) > 0
	}
	return fix, func() { snap.RemoveFrozen(dir) }, nil
}
