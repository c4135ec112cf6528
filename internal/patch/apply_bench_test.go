package patch

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkApply applies a git diff of 200 one-line changes spread over a
// 10,000-line file, the size of a large generated patch; it reports the
// patch's size so the MB/s figure is the parse-and-place rate.
func BenchmarkApply(b *testing.B) {
	old := numbered(10000)
	var p strings.Builder
	p.WriteString("diff --git a/big.txt b/big.txt\nindex 1..2 100644\n--- a/big.txt\n+++ b/big.txt\n")
	for k := 0; k < 200; k++ {
		n := 25 + 50*k // the changed line; 3 lines of context each side
		fmt.Fprintf(&p, "@@ -%d,7 +%d,7 @@\n", n-3, n-3)
		for i := n - 3; i <= n+3; i++ {
			if i == n {
				fmt.Fprintf(&p, "-line %d\n+LINE %d\n", i, i)
				continue
			}
			fmt.Fprintf(&p, " line %d\n", i)
		}
	}
	text := p.String()
	read := fakeFS(map[string]string{"big.txt": old})
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ch, err := Apply(text, read)
		if err != nil || len(ch) != 1 {
			b.Fatalf("%v %d", err, len(ch))
		}
	}
}
