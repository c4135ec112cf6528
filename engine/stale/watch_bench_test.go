package stale

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchWS is $SHADOW_BENCH_WS (bench/stale.sh passes its 100k-file git
// checkout), else a 10k-file, 100-directory tree without git.
func benchWS(b *testing.B) string {
	if ws := os.Getenv("SHADOW_BENCH_WS"); ws != "" {
		return ws
	}
	ws := b.TempDir()
	for i := 0; i < 10000; i++ {
		d := filepath.Join(ws, fmt.Sprintf("d%02d", i%100))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d", i)), []byte("x\n"), 0o644)
	}
	return ws
}

// The staleness watch of one run with no change: set every watch, stop.
func BenchmarkStaleWatch(b *testing.B) {
	ws := benchWS(b)
	b.ResetTimer()
	for b.Loop() {
		if p := Start(ws).Stop(nil); len(p) != 0 {
			b.Fatal(p)
		}
	}
}

// The scan it replaces: every source file listed and stat'ed at start and
// again at the end.
func BenchmarkStaleScan(b *testing.B) {
	ws := benchWS(b)
	b.ResetTimer()
	for b.Loop() {
		if p := ScanSources(ws).Changed(ws); len(p) != 0 {
			b.Fatal(p)
		}
	}
}
