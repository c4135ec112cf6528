package overlay

import (
	"context"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

// BenchmarkShadowTrue is the fixed cost of one hypothesis: prepare the
// upper dir, re-execute the init into new namespaces, mount, run `true`,
// tear down, remove the upper dir. Compare with BenchmarkBareTrue, the
// same fork/exec of `true` without a sandbox.
func BenchmarkShadowTrue(b *testing.B) {
	base := b.TempDir()
	v := Probe(base)
	if v.Mode != "overlay" {
		b.Skip(v.Reason)
	}
	sb := New(base, v.Options)
	ws := b.TempDir()
	os.WriteFile(ws+"/f.txt", []byte("x"), 0o644)
	hyp := engine.Hypothesis{Name: "h", Files: []engine.File{{Path: "f.txt", Content: []byte("y"), Mode: 0o644}}}
	before := childCPU()
	b.ResetTimer()
	defer func() {
		// CPU time of the init and the command (both reaped children):
		// less sensitive than wall time on a machine shared with other
		// work.
		b.ReportMetric(float64((childCPU()-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}()
	for i := 0; i < b.N; i++ {
		o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Hyp: hyp, Command: []string{"true"}, Env: os.Environ(), Output: io.Discard})
		if err != nil || o.ExitCode != 0 {
			b.Fatal(err, o)
		}
	}
}

func BenchmarkBareTrue(b *testing.B) {
	for i := 0; i < b.N; i++ {
		p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
		if err != nil {
			b.Fatal(err)
		}
		p.Wait()
	}
}

// childCPU is the user and system time of this process's reaped children
// (getrusage(2), RUSAGE_CHILDREN).
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkShadowTrueSeal splits the seal's share of the fixed cost:
// the default (read-only /, $HOME overlay, private /tmp, /var/tmp and
// /dev/shm, a network namespace of its own), then with --net host, then
// also without a $HOME in the environment (no home overlay) or with
// --tmp shared (the host's /tmp and /var/tmp bound, no tmpfs), and with
// neither (what is left: the read-only view and /dev/shm).
func BenchmarkShadowTrueSeal(b *testing.B) {
	base := b.TempDir()
	v := Probe(base)
	if v.Mode != "overlay" {
		b.Skip(v.Reason)
	}
	sb := New(base, v.Options)
	ws := b.TempDir()
	os.WriteFile(ws+"/f.txt", []byte("x"), 0o644)
	hyp := engine.Hypothesis{Name: "h", Files: []engine.File{{Path: "f.txt", Content: []byte("y"), Mode: 0o644}}}
	var noHome []string
	for _, kv := range os.Environ() {
		if len(kv) < 5 || kv[:5] != "HOME=" {
			noHome = append(noHome, kv)
		}
	}
	for _, c := range []struct {
		name, tmp, net string
		env            []string
	}{{"default", "", "", os.Environ()}, {"net-host", "", "host", os.Environ()}, {"no-home", "", "host", noHome},
		{"tmp-shared", "shared", "host", os.Environ()}, {"read-only-root-only", "shared", "host", noHome}} {
		b.Run(c.name, func(b *testing.B) {
			before := childCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Hyp: hyp, Command: []string{"true"}, Env: c.env, Tmp: c.tmp, Net: c.net, Output: io.Discard})
				if err != nil || o.ExitCode != 0 {
					b.Fatal(err, o)
				}
			}
			b.ReportMetric(float64((childCPU()-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
