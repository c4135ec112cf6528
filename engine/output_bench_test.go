package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/parse"
)

// BenchmarkOutputLine is the in-process path of one output line, from
// the sandbox's output pipe (os/exec copies it in 32 KiB reads) to the
// events: the test parser's live counts, the stored log, the tail, the
// coalesced output and tests events, each handed to a Broker whose
// lossless consumer marshals it as the run's record does. ns/line is the
// figure bench/outputcpu.sh measures for the whole process (docs/figures.md).
func BenchmarkOutputLine(b *testing.B) {
	for _, c := range []struct {
		name string
		line func(i int) string
	}{
		{"plain", func(i int) string { return fmt.Sprintf("flood line %d: some test output, nothing to see, ok\n", i) }},
		{"gotest", func(i int) string {
			if i%2 == 0 {
				return fmt.Sprintf("=== RUN   TestThing%d\n", i)
			}
			return fmt.Sprintf("--- PASS: TestThing%d (0.00s)\n", i-1)
		}},
		{"pytest", func(i int) string { return fmt.Sprintf("tests/test_mod.py::test_case_%d PASSED [ 42%%]\n", i) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			var all []byte
			lines := 0
			for ; len(all) < 4<<20; lines++ {
				all = append(all, c.line(lines)...)
			}
			dir := b.TempDir()
			b.SetBytes(int64(len(all)))
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				f, err := os.Create(filepath.Join(dir, fmt.Sprint(i)))
				if err != nil {
					b.Fatal(err)
				}
				broker := NewBroker(Consumer{Lossless: true, Sink: func(ev Event) { _, _ = json.Marshal(ev) }})
				em := newEmitter("run", broker.Publish, time.Now)
				o := newHypOutput("h1", f, DefaultMaxOutput, parse.NewStream(nil), em)
				for p := 0; p < len(all); p += 32 << 10 {
					_, _ = o.Write(all[p:min(p+32<<10, len(all))])
				}
				o.close()
				broker.Close()
				os.Remove(f.Name())
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(lines), "ns/line")
		})
	}
}
