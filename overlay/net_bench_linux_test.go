package overlay

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// BenchmarkShadowTrueNet is the network's share of a hypothesis's fixed
// cost, side by side: --net host (no network namespace), isolated (a
// namespace with lo up), private (the default: lo up, the proxy's
// listener made in the namespace and handed to shadow), private with one
// --host-port listener more. The limits (cgroups or the rlimit,
// oom_score_adj) are on in every case.
func BenchmarkShadowTrueNet(b *testing.B) {
	base := b.TempDir()
	v := Probe(base)
	if v.Mode != "overlay" {
		b.Skip(v.Reason)
	}
	ws := b.TempDir()
	os.WriteFile(ws+"/f.txt", []byte("x"), 0o644)
	hyp := engine.Hypothesis{Name: "h", Files: []engine.File{{Path: "f.txt", Content: []byte("y"), Mode: 0o644}}}
	for _, c := range []struct {
		name, net string
		ports     []int
	}{{"host", "host", nil}, {"isolated", "isolated", nil}, {"private", "", nil}, {"private+host-port", "", []int{5432}}} {
		b.Run(c.name, func(b *testing.B) {
			sb := New(base, v.Options).HostPorts(c.ports...)
			before := childCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Hyp: hyp, Command: []string{"true"}, Env: os.Environ(), Net: c.net, Output: io.Discard})
				if err != nil || o.ExitCode != 0 {
					b.Fatal(err, o)
				}
			}
			b.ReportMetric(float64((childCPU()-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
