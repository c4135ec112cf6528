package run

import (
	"encoding/json"
	"os"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/engine/judge"
	"github.com/shadow-dev/shadow/internal/shard"
)

// shardHyps keeps the hypotheses of one shard (--shard K/N over the
// spec's "shard"): every baseline, so each shard's fixed/broken and
// lost_tests stand alone against its own run of it, and the other
// hypotheses whose names internal/shard assigns to K. It returns the
// report's shard description, nil when the run is not sharded.
func shardHyps(o Options, spec *engine.Spec, specJSON []byte, ws string, command []string, hyps []engine.Hypothesis) ([]engine.Hypothesis, *engine.ShardInfo, error) {
	text := o.Shard
	if text == "" {
		text = spec.Shard
	}
	if text == "" {
		if o.ShardIndexEnv != "" {
			return nil, nil, Usage("--shard-index-env %s: give the shard count too, e.g. --shard /4", o.ShardIndexEnv)
		}
		return hyps, nil, nil
	}
	s, given, err := shard.Parse(text)
	if err != nil {
		return nil, nil, Usage("%v", err)
	}
	info := &engine.ShardInfo{Count: s.Count, Command: command, Base: judge.CheckoutCommit(ws)}
	if !given || o.ShardIndexEnv != "" {
		idx, from, err := shard.IndexFromEnv(o.ShardIndexEnv, s.Count, os.Getenv)
		if err != nil {
			return nil, nil, Usage("--shard %s: %v", text, err)
		}
		s.Index, info.IndexEnv = idx, from
	}
	info.Index = s.Index
	// The digest leaves "shard" out: workers of one run may each carry
	// their own index in it.
	unsharded := *spec
	unsharded.Shard = ""
	if b, err := json.MarshalIndent(&unsharded, "", "  "); err == nil {
		specJSON = b
	}
	info.SpecSHA256 = judge.ShardDigest(specJSON, hyps)
	var names []string
	for _, h := range hyps {
		info.Hypotheses = append(info.Hypotheses, h.Name)
		if !h.IsBaseline() {
			names = append(names, h.Name)
		}
	}
	mine := map[string]bool{}
	for _, n := range shard.Of(names, s) {
		mine[n] = true
	}
	var out []engine.Hypothesis
	for _, h := range hyps {
		if h.IsBaseline() || mine[h.Name] {
			out = append(out, h)
		}
	}
	return out, info, nil
}
