package judge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// MergeError is a refusal of `shadow merge`: the reports are not the
// shards of one run. Nothing is merged (exit 2).
type MergeError struct{ Msg string }

func (e *MergeError) Error() string { return e.Msg }

func mergeErr(format string, a ...any) error { return &MergeError{fmt.Sprintf(format, a...)} }

// MergeShards ranks the results of every shard of one run as that run
// would have ranked them unsharded (docs/report.md "Shards"). names label
// each report in refusals (its file name). Each shard ran the baselines
// too (docs/cli.md --shard): the merged report keeps the lowest index's.
//
// What the merge trusts: each shard's verdicts (fixed, broken, lost_tests,
// disqualified, suspicious, tampered) were measured against its own run of
// the same baseline, and its rank_key says what Rank sorted on; the merge
// sorts every result by that key and the whole spec's order, recomputes
// ties_with from the outcome digests, and names the first of the first tier
// (with --confirm: one its shard confirmed). The cross phase's part is
// recomputed from every shard's cross outcomes (mergeCross): a candidate
// is ranked on every other candidate's reproductions, whichever shard
// proposed them.
func MergeShards(reps []*Report, names []string) (*Report, error) {
	if len(reps) == 0 {
		return nil, mergeErr("merge: no reports given")
	}
	label := func(i int) string {
		if i < len(names) && names[i] != "" {
			return names[i]
		}
		return fmt.Sprintf("report %d", i+1)
	}
	byIndex := map[int]int{}
	first := reps[0]
	for i, r := range reps {
		if r.Schema != ReportSchema {
			return nil, mergeErr("merge: %s is not a shadow report (schema %q, want %q)", label(i), r.Schema, ReportSchema)
		}
		if r.Shard == nil {
			return nil, mergeErr("merge: %s is not a shard (its run had no --shard K/N): merge takes the shards of one run", label(i))
		}
		s, f := r.Shard, first.Shard
		switch {
		case s.Count != f.Count:
			return nil, mergeErr("merge: %s is shard %d of %d, %s of %d: not one run's shards", label(i), s.Index, s.Count, label(0), f.Count)
		case s.SpecSHA256 != f.SpecSHA256:
			return nil, mergeErr("merge: %s ran another spec (sha256 %.12s, %s has %.12s)", label(i), s.SpecSHA256, label(0), f.SpecSHA256)
		case strings.Join(s.Command, "\x00") != strings.Join(f.Command, "\x00"):
			return nil, mergeErr("merge: %s ran another command (%q, %s ran %q)", label(i), s.Command, label(0), f.Command)
		case s.Base != f.Base:
			return nil, mergeErr("merge: %s ran on another commit of the checkout (%q, %s on %q)", label(i), s.Base, label(0), f.Base)
		case strings.Join(s.Hypotheses, "\x00") != strings.Join(f.Hypotheses, "\x00"):
			return nil, mergeErr("merge: %s lists other hypotheses than %s", label(i), label(0))
		case s.Index < 0 || s.Index >= s.Count:
			return nil, mergeErr("merge: %s says it is shard %d of %d", label(i), s.Index, s.Count)
		}
		if j, dup := byIndex[s.Index]; dup {
			return nil, mergeErr("merge: shard %d is given twice (%s and %s)", s.Index, label(j), label(i))
		}
		byIndex[s.Index] = i
	}
	var missing []string
	for k := 0; k < first.Shard.Count; k++ {
		if _, ok := byIndex[k]; !ok {
			missing = append(missing, fmt.Sprint(k))
		}
	}
	if len(missing) > 0 {
		return nil, mergeErr("merge: shard %s of %d missing: give every shard's report (retry the index that failed to run)", strings.Join(missing, ", "), first.Shard.Count)
	}

	order := map[string]int{}
	for i, n := range first.Shard.Hypotheses {
		order[n] = i
	}
	indexes := make([]int, 0, len(byIndex))
	for k := range byIndex {
		indexes = append(indexes, k)
	}
	sort.Ints(indexes)
	lowest := reps[byIndex[indexes[0]]]

	// A hypothesis every shard ran is a baseline (each shard runs them);
	// any other must come from exactly one shard.
	seen := map[string]int{}
	for _, r := range reps {
		for _, h := range r.Hypotheses {
			seen[h.Name]++
		}
	}
	out := &Report{
		Schema: ReportSchema, Workspace: lowest.Workspace, Subdir: lowest.Subdir,
		Command: lowest.Command, Mode: lowest.Mode, StartedAt: lowest.StartedAt,
		StalePaths: []string{}, Applied: []string{}, MergedFrom: indexes,
		BaselineFlaky: lowest.BaselineFlaky,
		TestsFrom:     lowest.TestsFrom, // one spec digest: the same tests in every shard
	}
	var end time.Time
	var results []*Result
	from := map[string]int{} // each result's shard
	var errs []string
	for _, k := range indexes {
		r := reps[byIndex[k]]
		if r.StartedAt.Before(out.StartedAt) {
			out.StartedAt = r.StartedAt
		}
		if e := r.StartedAt.Add(time.Duration(r.DurationMS) * time.Millisecond); e.After(end) {
			end = e
		}
		if r.Mode != out.Mode {
			out.Mode = "mixed"
		}
		out.Stale = out.Stale || r.Stale
		out.StalePaths = unionSorted(out.StalePaths, r.StalePaths)
		out.Cancelled = out.Cancelled || r.Cancelled
		out.Frozen = out.Frozen || r.Frozen
		out.Sync = append(out.Sync, r.Sync...)
		if r.Error != "" {
			errs = append(errs, fmt.Sprintf("shard %d: %s", k, r.Error))
		}
		for _, h := range r.Hypotheses {
			if _, known := order[h.Name]; !known {
				return nil, mergeErr("merge: shard %d reports %q, which its spec does not have", k, h.Name)
			}
			if h.RankKey == nil {
				return nil, mergeErr("merge: shard %d's %q has no rank_key: run the shards with a shadow that writes it (this one)", k, h.Name)
			}
			if seen[h.Name] == len(reps) && len(reps) > 1 {
				if r != lowest {
					continue // a baseline: the lowest shard's stands
				}
			} else if seen[h.Name] > 1 {
				return nil, mergeErr("merge: %q ran in %d shards but not all: not one run's shards", h.Name, seen[h.Name])
			}
			c := *h
			results = append(results, &c)
			from[h.Name] = k
		}
	}
	for _, n := range first.Shard.Hypotheses {
		if seen[n] == 0 {
			return nil, mergeErr("merge: no shard reports %q", n)
		}
	}
	out.Error = strings.Join(errs, "; ")
	byShard := map[int]*Report{}
	for k, i := range byIndex {
		byShard[k] = reps[i]
	}
	notes, err := mergeCross(byShard, indexes, results, from, first.Shard.Hypotheses)
	if err != nil {
		return nil, err
	}
	out.MergeNotes = notes
	out.DurationMS = end.Sub(out.StartedAt).Milliseconds()

	sort.SliceStable(results, func(i, j int) bool {
		a, b := results[i], results[j]
		return rankKeyLess(a.RankKey, b.RankKey, order[a.Name], order[b.Name])
	})
	confirmRun, unconfirmed := false, false
	for _, r := range results {
		confirmRun = confirmRun || r.Runs > 1
	}
	digests := map[string][]string{}
	for _, r := range results {
		if r.Status == StatusPassed && r.RankKey.Outcomes != "" {
			digests[r.RankKey.Outcomes] = append(digests[r.RankKey.Outcomes], r.Name)
		}
	}
	for i, r := range results {
		r.Rank = i + 1
		r.TiesWith = []string{}
		if r.Status == StatusPassed && r.RankKey.Outcomes != "" {
			for _, n := range digests[r.RankKey.Outcomes] {
				if n != r.Name {
					r.TiesWith = append(r.TiesWith, n)
				}
			}
		}
		if out.Winner == nil && !unconfirmed && r.RankKey.Tier == tierPassed && r.Status == StatusPassed &&
			!out.Cancelled && out.Error == "" {
			switch {
			case !confirmRun || r.RankKey.Confirmed:
				name := r.Name
				out.Winner = &name
			case r.Runs <= 1:
				// The unsharded run would rerun this leader first; its
				// shard reran its own, which another shard's reproduction
				// put below it (the merged cross phase): no winner is
				// named that the reruns did not confirm.
				unconfirmed = true
				out.MergeNotes = append(out.MergeNotes, fmt.Sprintf("confirm: %s leads the merge but its shard did not rerun it (--confirm reran the shard's own leader, which other shards' reproductions rank lower): no winner; run %s again with --confirm, unsharded or in a shard of its own", r.Name, r.Name))
			}
		}
	}
	MergeContrast(results)
	out.Hypotheses = results
	return out, nil
}

func unionSorted(a, b []string) []string {
	m := map[string]bool{}
	for _, s := range a {
		m[s] = true
	}
	for _, s := range b {
		m[s] = true
	}
	out := make([]string, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// ReadShardReport reads one shard's report: a shadow.report/v1 document
// (--json), or a shadow.event/v1 stream (--events) whose run_finished
// event carries it. A stream cut before run_finished is refused: that
// shard did not finish, and its index must run again.
func ReadShardReport(r io.Reader) (*Report, error) {
	data, err := io.ReadAll(io.LimitReader(r, 1<<30))
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("empty: not a shadow report")
	}
	var probe struct {
		Schema string `json:"schema"`
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&probe); err != nil {
		return nil, fmt.Errorf("not a shadow report (%v)", err)
	}
	switch probe.Schema {
	case ReportSchema:
		var rep Report
		if err := json.Unmarshal(trimmed, &rep); err != nil {
			return nil, fmt.Errorf("not a shadow report (%v)", err)
		}
		return &rep, nil
	case EventSchema:
		sc := bufio.NewScanner(bytes.NewReader(trimmed))
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		for sc.Scan() {
			var ev struct {
				Kind   string  `json:"kind"`
				Report *Report `json:"report"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				return nil, fmt.Errorf("event stream: %v", err)
			}
			if ev.Kind == KindRunFinished && ev.Report != nil {
				return ev.Report, nil
			}
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("event stream ends before run_finished: that shard did not finish; run its index again")
	}
	return nil, fmt.Errorf("not a shadow report (schema %q)", probe.Schema)
}
