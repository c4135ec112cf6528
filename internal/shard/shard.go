// Package shard splits a run's hypotheses into N shards for a scheduler
// that gives each worker an index (a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX, a Slurm array's SLURM_ARRAY_TASK_ID, a CI matrix
// value), as cargo-mutants' --shard k/n does.
//
// The partition depends only on the hypotheses' names: each name is keyed
// by the SHA-256 of its bytes, the names are sorted by key, and the i-th
// name in that order goes to shard i mod N. So the same spec gives the same
// shards whatever the order of its hypotheses, adding a hypothesis moves
// only those sorted after it, and shard sizes differ by at most one.
package shard

import (
	"crypto/sha256"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Shard is one worker's slice: Index in [0, Count).
type Shard struct {
	Index int
	Count int
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Parse reads "K/N" (0 <= K < N). K may be empty ("/4") when the index
// comes from the environment (IndexFromEnv).
func Parse(text string) (s Shard, indexGiven bool, err error) {
	k, n, ok := strings.Cut(text, "/")
	if !ok {
		return Shard{}, false, fmt.Errorf("--shard %q: want K/N, e.g. 0/4 (K counts from 0)", text)
	}
	count, err := strconv.Atoi(n)
	if err != nil || count < 1 {
		return Shard{}, false, fmt.Errorf("--shard %q: N must be a whole number of shards, at least 1", text)
	}
	s.Count = count
	if k == "" {
		return s, false, nil
	}
	idx, err := strconv.Atoi(k)
	if err != nil || idx < 0 || idx >= count {
		return Shard{}, false, fmt.Errorf("--shard %q: K must be a whole number from 0 to %d", text, count-1)
	}
	s.Index = idx
	return s, true, nil
}

// IndexEnvs are the variables schedulers set to a worker's index, in the
// order they are looked for when --shard-index-env names none.
var IndexEnvs = []string{
	"JOB_COMPLETION_INDEX",   // Kubernetes Indexed Job
	"SLURM_ARRAY_TASK_ID",    // Slurm job array
	"BUILDKITE_PARALLEL_JOB", // Buildkite parallelism
	"CI_NODE_INDEX",          // GitLab parallel (1-based: see IndexFromEnv)
	"SHADOW_SHARD_INDEX",     // anything else: set it yourself
}

// IndexFromEnv finds a worker's index in the environment: the variable
// named (name != ""), else the first of IndexEnvs that is set. It returns
// the variable it used. GitLab's CI_NODE_INDEX counts from 1; the others
// from 0.
func IndexFromEnv(name string, count int, getenv func(string) string) (int, string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	names := IndexEnvs
	if name != "" {
		names = []string{name}
	}
	for _, v := range names {
		raw := strings.TrimSpace(getenv(v))
		if raw == "" {
			continue
		}
		idx, err := strconv.Atoi(raw)
		if err != nil {
			return 0, v, fmt.Errorf("shard index: $%s is %q, not a whole number", v, raw)
		}
		if v == "CI_NODE_INDEX" {
			idx--
		}
		if idx < 0 || idx >= count {
			return 0, v, fmt.Errorf("shard index: $%s is %q, outside 0..%d for %d shards", v, raw, count-1, count)
		}
		return idx, v, nil
	}
	if name != "" {
		return 0, "", fmt.Errorf("shard index: $%s is not set", name)
	}
	return 0, "", fmt.Errorf("shard index: none given (--shard K/N) and none of $%s is set", strings.Join(IndexEnvs, ", $"))
}

// Of returns the names that belong to shard s, in the order given.
func Of(names []string, s Shard) []string {
	mine := Assign(names, s.Count)
	var out []string
	for _, n := range names {
		if mine[n] == s.Index {
			out = append(out, n)
		}
	}
	return out
}

// Assign maps each name to its shard index for count shards.
func Assign(names []string, count int) map[string]int {
	type keyed struct {
		key  [sha256.Size]byte
		name string
	}
	ks := make([]keyed, len(names))
	for i, n := range names {
		ks[i] = keyed{sha256.Sum256([]byte(n)), n}
	}
	sort.Slice(ks, func(i, j int) bool {
		if c := strings.Compare(string(ks[i].key[:]), string(ks[j].key[:])); c != 0 {
			return c < 0
		}
		return ks[i].name < ks[j].name
	})
	out := make(map[string]int, len(names))
	for i, k := range ks {
		out[k.name] = i % count
	}
	return out
}
