package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// ShardInfo says a report is one shard of a run split across workers
// (--shard K/N, docs/report.md "shard"): which slice, and what every shard
// of the same run must share for `shadow merge` to accept them together.
type ShardInfo struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// SpecSHA256 is the SHA-256 of the spec as given (the file's bytes),
	// Command the command, Base the checkout's commit (git HEAD; "" outside
	// git): shards that differ in any of them are not one run.
	SpecSHA256 string   `json:"spec_sha256"`
	Command    []string `json:"command"`
	Base       string   `json:"base"`
	// IndexEnv names the environment variable the index came from
	// (JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID...), "" when given as K.
	IndexEnv string `json:"index_env,omitempty"`
	// Hypotheses are every hypothesis of the whole spec in spec order (all
	// shards'): the merge checks each ran in exactly one shard and breaks
	// the last tie on this order, as an unsharded run does.
	Hypotheses []string `json:"hypotheses"`
	// Cross is what this shard's cross phase saw (cross_shard.go): every
	// proposal of the whole spec run on the checkout and on this shard's
	// candidates, so the merge recomputes proposed_tests, cross and the
	// rank key's cross part as one run would. Omitted when the cross phase
	// did not run (no candidate proposes a test, --no-cross).
	Cross *ShardCross `json:"cross_outcomes,omitempty"`

	// SpecHyps are every hypothesis of the whole spec, resolved, in spec
	// order (internal/run sets them; not part of the report): the cross
	// phase of a shard plans every proposal, not only its slice's.
	SpecHyps []Hypothesis `json:"-"`
}

// RankKey is what Rank sorted a result on (report field "rank_key"), so a
// reader sees why one candidate is above another and `shadow merge` can
// rank results from several shards exactly as one run would: tier, then a
// failed --confirm rerun first, fewer failing tests, more passing, fewer
// reproductions of other candidates failed, fewer changed lines (the code
// part for a judged candidate), spec order. Outcomes is a digest of the
// per-test outcomes (passing candidates with the same digest tie).
type RankKey struct {
	Tier          int    `json:"tier"`
	ConfirmFailed bool   `json:"confirm_failed"`
	Confirmed     bool   `json:"confirmed"`
	Failed        int    `json:"failed"`
	Passed        int    `json:"passed"`
	CrossFailed   int    `json:"cross_failed"`
	Lines         int    `json:"lines"`
	Outcomes      string `json:"outcomes,omitempty"`
	// TestOutcomes is the digest of the per-test outcomes alone, before
	// the cross phase's part: `shadow merge` recomputes Outcomes from it
	// and the merged cross (outcomesDigest).
	TestOutcomes string `json:"test_outcomes,omitempty"`
}

// rankKeyOf is r's key after Rank (r.tier set).
func rankKeyOf(r *Result) *RankKey {
	k := &RankKey{
		Tier: r.tier, ConfirmFailed: r.confirmFailed, Confirmed: r.confirmed,
		Failed: failedCount(r), Passed: passedCount(r),
		CrossFailed: crossFailedFrom(r), Lines: rankLines(r),
	}
	if r.Status == StatusPassed {
		tests := *r
		tests.Cross = nil
		k.TestOutcomes = digest12(outcomeKey(&tests))
		k.Outcomes = outcomesDigest(k.TestOutcomes, r.Cross)
	}
	return k
}

// outcomesDigest is a passing result's rank_key.outcomes: its per-test
// outcomes' digest and the reproductions it fails, which tell two
// candidates apart as outcomeKey's cross part does (equal digests tie).
func outcomesDigest(tests string, c *Cross) string {
	k := tests
	if c != nil {
		for _, f := range c.Failed {
			k += "|" + f.From + "\x00" + f.Test
		}
	}
	return digest12(k)
}

func digest12(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
}

// less orders two keys as Rank does, spec order (oa, ob) last.
func (a *RankKey) less(b *RankKey, oa, ob int) bool {
	switch {
	case a.Tier != b.Tier:
		return a.Tier < b.Tier
	case a.ConfirmFailed != b.ConfirmFailed:
		return a.ConfirmFailed
	case a.Failed != b.Failed:
		return a.Failed < b.Failed
	case a.Passed != b.Passed:
		return a.Passed > b.Passed
	case a.CrossFailed != b.CrossFailed:
		return a.CrossFailed < b.CrossFailed
	case a.Lines != b.Lines:
		return a.Lines < b.Lines
	}
	return oa < ob
}

// ShardDigest is a shard's spec_sha256: the SHA-256 of the spec as
// decoded and of every hypothesis as resolved (names, files with their
// bytes and modes, deletes, common part), so shards whose "file" sources
// or bases differ on two machines are told apart although their spec text
// is the same.
func ShardDigest(specJSON []byte, hyps []Hypothesis) string {
	h := sha256.New()
	field := func(b []byte) {
		var n [8]byte
		for i, l := 0, uint64(len(b)); i < 8; i++ {
			n[i] = byte(l >> (8 * i))
		}
		h.Write(n[:])
		h.Write(b)
	}
	field(specJSON)
	files := func(fs []File) {
		for _, f := range fs {
			field([]byte(f.Path))
			field(f.Content)
			field([]byte(f.Mode.String()))
		}
	}
	for _, x := range hyps {
		field([]byte(x.Name))
		files(x.Files)
		field([]byte(strings.Join(x.Deletes, "\x00")))
		files(x.Common)
		field([]byte(strings.Join(x.CommonDeletes, "\x00")))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CheckoutCommit is the checkout's HEAD commit, "" outside git (a shard's
// "base": shards run on mirrors of one commit).
func CheckoutCommit(ws string) string {
	out, err := gitZ(ws, "rev-parse", "--verify", "-q", "HEAD")
	if err != nil || len(out) == 0 {
		return ""
	}
	return strings.TrimSpace(out[0])
}
