package engine

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine/judge"
)

// BenchmarkGitRisks measures the git-obeys check (GitRisks, made once per
// hypothesis at the run's start and again by every apply) on a real
// project's tree, against the diff the run computes for the same
// hypothesis anyway (newResult): the hypothesis rewrites every file of
// SHADOW_BENCH_TREE (bench/gitrisk.sh passes k8s.io/client-go, 2,531
// files, 17.9 MB), one line added to each. Without SHADOW_BENCH_TREE it is
// a no-op.
func BenchmarkGitRisks(b *testing.B) {
	tree := os.Getenv("SHADOW_BENCH_TREE")
	if tree == "" {
		b.Skip("SHADOW_BENCH_TREE unset: bench/gitrisk.sh sets it")
	}
	h := Hypothesis{Name: "all"}
	var bytes int64
	filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		c, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(tree, p)
		bytes += int64(len(c))
		h.Files = append(h.Files, File{Path: filepath.ToSlash(rel), Content: append(c, "// added\n"...), Mode: 0o644})
		return nil
	})
	orig := ReadOriginals(tree, []Hypothesis{h})
	b.Logf("%d files, %d bytes", len(h.Files), bytes)
	// Alternating: each iteration runs both, so the machine's noise
	// falls on both alike (HELPERS.md: ratios, not absolute times).
	var risk, diff int64
	for i := 0; i < b.N; i++ {
		t0 := nowNano()
		if rs := GitRisks(tree, h, orig); len(rs) != 0 {
			b.Fatalf("a real project is clean: %v", rs)
		}
		t1 := nowNano()
		judge.HypDiff(h, orig) // the report entry's diff, as the judge makes it
		t2 := nowNano()
		risk += t1 - t0
		diff += t2 - t1
	}
	b.ReportMetric(float64(risk)/float64(b.N)/1e6, "gitrisk-ms/op")
	b.ReportMetric(float64(diff)/float64(b.N)/1e6, "diff-ms/op")
	b.ReportMetric(float64(risk)/float64(diff), "gitrisk/diff")
}

func nowNano() int64 { return time.Now().UnixNano() }
