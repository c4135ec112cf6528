package judge

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkContrast measures the contrastive note (fillContrast: set
// comparisons over the files and the hits the suspicious verdict's scan
// already made) for 12 candidates that each rewrite a 1,800-line Go file
// and add a helper, against that scan of the same candidates (scanCode),
// alternating in each iteration so the machine's noise falls on both.
func BenchmarkContrast(b *testing.B) {
	var src strings.Builder
	src.WriteString("package calc\n\n")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&src, "func F%d(a, b int) int {\n\tif a > b {\n\t\treturn a - b\n\t}\n\treturn a + b\n}\n", i)
	}
	jd := newJudge(nil, nil)
	orig := map[string]FileState{}
	var hyps []Hypothesis
	results := []*result{}
	for k := 0; k < 12; k++ {
		h := Hypothesis{Name: fmt.Sprintf("c%d", k), Files: []File{
			{Path: "calc.go", Content: []byte(src.String() + fmt.Sprintf("// %d\n", k))},
			{Path: fmt.Sprintf("helper%d.go", k%3), Content: []byte("package calc\n")},
		}}
		hyps = append(hyps, h)
		results = append(results, &result{Result: &Result{Name: h.Name, Status: StatusPassed}, scanHits: scanHits(jd, h, orig)})
	}
	var contrast, scanned time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		fillContrast(results, hyps)
		t1 := time.Now()
		for _, h := range hyps {
			scanCode(jd, h, orig)
		}
		contrast += t1.Sub(t0)
		scanned += time.Since(t1)
	}
	b.ReportMetric(float64(contrast.Microseconds())/float64(b.N), "contrast-us/op")
	b.ReportMetric(float64(scanned.Microseconds())/float64(b.N), "scan-us/op")
}
