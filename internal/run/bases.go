package run

import (
	"fmt"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// baseResolver is the engine.BaseResolver over the snapshot store: a spec's
// "base" (RUN/HYP or @last/HYP, RUN a unique prefix of a run id) names a
// recorded hypothesis, whose complete file set (its own base's included)
// is the starting point. It remembers what each reference resolved to, so
// the run records it.
type baseResolver struct {
	store    snap.Store
	storeErr error // the state dir could not be found: no base resolves
	ws       string
	resolved map[string]string // ref -> RUN/HYP
}

func (b *baseResolver) resolve(ref string) ([]engine.File, []string, error) {
	if b.storeErr != nil {
		return nil, nil, b.storeErr
	}
	run, hyp, err := b.store.FindHyp(b.ws, ref)
	if err != nil {
		return nil, nil, err
	}
	h, _, err := b.store.LoadHyp(b.ws, run, hyp)
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
// A failure is a notice and the run goes on: the record is a convenience,
// the run is what was asked for.
func (p *Plan) recordInputs(rec *snap.Run, cfg *engine.Config) {
	orig := engine.ReadOriginals(cfg.Workspace, cfg.Hyps)
	if err := rec.RecordInputs(cfg.Hyps, p.bases, orig); err != nil {
		fmt.Fprintln(p.notices, "shadow: record the hypotheses' files:", err)
	}
}

func hypNames(hyps []engine.Hypothesis) []string {
	names := make([]string, len(hyps))
	for i, h := range hyps {
		names[i] = h.Name
	}
	return names
}
