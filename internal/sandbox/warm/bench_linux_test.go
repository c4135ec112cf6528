package warm

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkUpdate measures making a new generation when the layer already
// holds a 20k-file target/ and the baseline rebuilt 100 of its files, with
// no run holding the layer (the common case: changed in place), and
// BenchmarkAcquire what a run pays at its start to stack it.
func BenchmarkUpdate(b *testing.B) {
	root, ws := benchLayer(b, 20000)
	up := b.TempDir()
	for i := 0; i < 100; i++ {
		p := filepath.Join(up, "target", "debug", fmt.Sprintf("d%d", i%100), fmt.Sprintf("f%d", i))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, []byte("rebuilt"), 0o644)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Update(root, ws, up, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/update")
}

// BenchmarkUpdateHeld is the same while another run holds the current
// generation: the next one is built beside it (the whole layer linked).
func BenchmarkUpdateHeld(b *testing.B) {
	root, ws := benchLayer(b, 20000)
	up := b.TempDir()
	for i := 0; i < 100; i++ {
		p := filepath.Join(up, "target", "debug", fmt.Sprintf("d%d", i%100), fmt.Sprintf("f%d", i))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, []byte("rebuilt"), 0o644)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		l, err := Acquire(root, ws)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := Update(root, ws, up, "bench"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		l.Release()
		Tidy(root, ws)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/update")
}

func BenchmarkAcquire(b *testing.B) {
	root, ws := benchLayer(b, 20000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := Acquire(root, ws)
		if err != nil {
			b.Fatal(err)
		}
		l.Release()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/acquire")
}

func benchLayer(b *testing.B, n int) (root, ws string) {
	ws, root = b.TempDir(), b.TempDir()
	_ = os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("target/\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", ".gitignore"}} {
		if _, _, err := git(ws, nil, args...); err != nil {
			b.Skip("git: ", err)
		}
	}
	up := b.TempDir()
	for i := 0; i < n; i++ {
		p := filepath.Join(up, "target", "debug", fmt.Sprintf("d%d", i%100), fmt.Sprintf("f%d", i))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, []byte("output"), 0o644)
	}
	if _, err := Update(root, ws, up, "seed"); err != nil {
		b.Fatal(err)
	}
	return root, ws
}
