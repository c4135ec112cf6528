package judge

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/shadow-dev/shadow/engine/report"
	"github.com/shadow-dev/shadow/internal/scan"
)

// The contrastive note (docs/report.md, "Contrast"): for each candidate,
// what it does that no other passing candidate does. Candidates that pass
// the same tests look alike in every count; the one that also touches a
// file nobody else needed, edits a runner's configuration, or asks the
// process whether it runs under a test is the one to read first, even
// where no rule made it suspicious.

// contrastIn is what the note compares of one candidate.
type contrastIn struct {
	name   string
	passed bool
	paths  []string // the files it writes or deletes
	// hits are the scan's hits on its code part ("FILE:LINE what"), by
	// rule ID; nil where unknown (a merged report's results).
	hits map[string][]string
}

// isRunnerConfig: a runner's configuration file (judge.go's list), which
// the note names apart from the other files.
func isRunnerConfig(p string) bool {
	base := path.Base(p)
	return runnerConfigs[base] || hasConfigPrefix(base) || strings.HasSuffix(p, ".cargo/config.toml") || strings.HasSuffix(p, ".cargo/config")
}

// byRule are the scan's hits on a candidate's code part (the suspicious
// verdict's, scan.go), "FILE:LINE what" by rule ID.
func byRule(hits []scan.Hit) map[string][]string {
	out := map[string][]string{}
	for _, hit := range hits {
		out[hit.Rule] = append(out[hit.Rule], fmt.Sprintf("%s:%d %s", hit.Path, hit.Line, hit.Why))
	}
	return out
}

// contrastOf is c's note against the other passing candidates among all;
// nil when there is none to compare with.
func contrastOf(c contrastIn, all []contrastIn) *Contrast {
	others := map[string]bool{}
	rules := map[string]bool{}
	peers := 0
	for _, o := range all {
		if o.name == c.name || !o.passed {
			continue
		}
		peers++
		for _, p := range o.paths {
			others[p] = true
		}
		for r := range o.hits {
			rules[r] = true
		}
	}
	if peers == 0 {
		return nil
	}
	out := &Contrast{Files: []string{}, Configs: []string{}, Introspection: []string{}}
	for _, p := range c.paths {
		switch {
		case others[p]:
		case isRunnerConfig(p):
			out.Configs = append(out.Configs, p)
		default:
			out.Files = append(out.Files, p)
		}
	}
	var ids []string
	for r := range c.hits {
		if !rules[r] {
			ids = append(ids, r)
		}
	}
	sort.Strings(ids)
	for _, r := range ids {
		out.Introspection = append(out.Introspection, c.hits[r]...)
	}
	sort.Strings(out.Files)
	sort.Strings(out.Configs)
	out.Note = contrastNote(out)
	return out
}

// contrastNote is the one line of a note.
func contrastNote(c *Contrast) string {
	var parts []string
	if len(c.Introspection) > 0 {
		parts = append(parts, "only its code: "+report.ListShort(c.Introspection, 2))
	}
	if len(c.Configs) > 0 {
		parts = append(parts, "only it edits runner config "+report.ListShort(c.Configs, 3))
	}
	if len(c.Files) > 0 {
		parts = append(parts, "only it touches "+report.ListShort(c.Files, 3))
	}
	return strings.Join(parts, "; ")
}

// fillContrast sets each candidate's contrast (a baseline's stays null).
func fillContrast(results []*result, hyps []Hypothesis) {
	byName := map[string]*result{} // results are in rank order by now
	for _, r := range results {
		byName[r.Name] = r
	}
	in := make([]contrastIn, 0, len(hyps))
	for _, h := range hyps {
		if r := byName[h.Name]; r != nil && !h.IsBaseline() {
			in = append(in, contrastIn{name: h.Name, passed: r.Status == StatusPassed, paths: proposedPaths(h), hits: byRule(r.scanHits)})
		}
	}
	for _, c := range in {
		byName[c.name].Contrast = contrastOf(c, in)
	}
}

// MergeContrast recomputes the notes of a merged report across its
// shards from each result's files. What each one's code asks is known
// only to its shard: a merged note keeps its shard's introspection (only
// it among that shard's passing candidates).
func MergeContrast(results []*Result) {
	in := make([]contrastIn, 0, len(results))
	for _, r := range results {
		if len(r.Files) == 0 && len(r.Deleted) == 0 {
			continue
		}
		in = append(in, contrastIn{name: r.Name, passed: r.Status == StatusPassed, paths: append(append([]string{}, r.Files...), r.Deleted...)})
	}
	for _, r := range results {
		if len(r.Files) == 0 && len(r.Deleted) == 0 {
			continue
		}
		var intro []string
		if r.Contrast != nil {
			intro = r.Contrast.Introspection
		}
		for _, c := range in {
			if c.name == r.Name {
				r.Contrast = contrastOf(c, in)
			}
		}
		if r.Contrast != nil && len(intro) > 0 {
			r.Contrast.Introspection = intro
			r.Contrast.Note = contrastNote(r.Contrast)
		}
	}
}
