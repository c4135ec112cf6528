package judge

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// rankKeyOf is r's key after Rank (r.tier set).
func rankKeyOf(r *result) *RankKey {
	k := &RankKey{
		Tier: r.tier, ConfirmFailed: r.confirmFailed, Confirmed: r.confirmed,
		Failed: failedCount(r), Passed: passedCount(r),
		CrossFailed: crossFailedFrom(r.Result), Lines: rankLines(r),
	}
	if r.Status == StatusPassed {
		tests, entry := *r, *r.Result // a copy of the entry too: r's keeps its cross
		entry.Cross = nil
		tests.Result = &entry
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

// rankKeyLess orders two keys as Rank does, spec order (oa, ob) last.
func rankKeyLess(a, b *RankKey, oa, ob int) bool {
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
