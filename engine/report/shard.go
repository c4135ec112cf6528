package report

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
	// Cross is what this shard's cross phase saw (engine/judge/cross_shard.go): every
	// proposal of the whole spec run on the checkout and on this shard's
	// candidates, so the merge recomputes proposed_tests, cross and the
	// rank key's cross part as one run would. Omitted when the cross phase
	// did not run (no candidate proposes a test, --no-cross).
	Cross *ShardCross `json:"cross_outcomes,omitempty"`
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

// ShardCross is a shard's cross-phase outcomes (report field
// shard.cross_outcomes): Checkout[proposer][test] on the checkout,
// Targets[hyp][proposer][test] on the code of each of the shard's hypotheses the phase ran on; each
// outcome "pass" or "fail", a test without one left out. A test is named
// as cross's refs name it (FILE::NAME, JavaScript FILE > title).
type ShardCross struct {
	Checkout map[string]map[string]string            `json:"checkout"`
	Targets  map[string]map[string]map[string]string `json:"targets"`
}
