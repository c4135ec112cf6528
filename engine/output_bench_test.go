//go:build unix

package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/parse"
)

// BenchmarkOutputLine is the in-process path of one output line, from
// the sandbox's output pipe (os/exec copies it in 32 KiB reads) to the
// events: the test parser's live counts, the stored log, the tail, the
// coalesced output and tests events, each handed to a Broker whose
// lossless consumer marshals it as the run's record does. ns/line is the
// figure (in CPU time: user and system of the whole test process,
// getrusage(2)) bench/outputcpu.sh measures for the whole process (docs/figures.md).
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
			cpu0 := cpuTime()
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
			// CPU, not wall: the machine may be shared; the broker's
			// goroutine counts too.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/float64(lines), "cpu-ns/line")
		})
	}
}

// cpuTime is the process's user and system CPU so far, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
