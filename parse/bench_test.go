package parse

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkStream feeds every fixture, as one output, in 4 KiB writes with a
// Live call after each, as the engine does.
func BenchmarkStream(b *testing.B) {
	var all []byte
	files, _ := filepath.Glob("testdata/*/*.txt")
	for _, f := range files {
		d, _ := os.ReadFile(f)
		all = append(all, d...)
	}
	b.SetBytes(int64(len(all)))
	for b.Loop() {
		s := NewStream(nil)
		for i := 0; i < len(all); i += 4096 {
			s.Write(all[i:min(i+4096, len(all))])
			s.Live()
		}
		s.Final()
	}
}

// BenchmarkNoise is a warning flood: lines no runner claims.
func BenchmarkNoise(b *testing.B) {
	line := []byte("warning: unused variable: `x` --> src/lib.rs:12:9 (see https://example.com) [-Wunused]\n")
	var all []byte
	for len(all) < 1<<20 {
		all = append(all, line...)
	}
	b.SetBytes(int64(len(all)))
	for b.Loop() {
		s := NewStream(nil)
		for i := 0; i < len(all); i += 4096 {
			s.Write(all[i:min(i+4096, len(all))])
			s.Live()
		}
		s.Final()
	}
}
