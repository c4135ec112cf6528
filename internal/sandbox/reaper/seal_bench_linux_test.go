package reaper

import (
	"context"
	"io"
	"os"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/internal/sandbox/landlock"
)

// BenchmarkStart: one command (true) under the helper, unsealed and
// sealed (Landlock, the socket guard, no capabilities), alternating in
// each iteration so that both see the same load; it reports each one's
// median wall time and mean CPU, and the differences, what the seal adds
// to a hypothesis's fixed cost:
// go test ./internal/sandbox/reaper -run '^$' -bench Start -benchtime 100x
func BenchmarkStart(b *testing.B) {
	if abi, why := landlock.Status(); abi == 0 {
		b.Skip("no Landlock: " + why)
	}
	dir := b.TempDir()
	seal := &landlock.Policy{Write: []string{dir}, Devices: landlock.DefaultDevices}
	// CPU is what the helper and the command used (RUSAGE_CHILDREN: the
	// helper reaps the command, this process the helper), less swayed
	// by the other load on a shared machine than wall time.
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	type cost struct{ wall, cpu []time.Duration }
	run := func(seal *landlock.Policy, c *cost) {
		t0, c0 := time.Now(), cpu()
		st, err := Run(context.Background(), Command{Argv: []string{"/bin/true"}, Dir: dir, Env: os.Environ(), Output: io.Discard, Seal: seal}, nil)
		if err != nil || st == nil || st.Exit != 0 {
			b.Fatalf("%v %+v", err, st)
		}
		c.wall = append(c.wall, time.Since(t0))
		c.cpu = append(c.cpu, cpu()-c0)
	}
	var plain, sealed cost
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			run(nil, &plain)
			run(seal, &sealed)
		} else {
			run(seal, &sealed)
			run(nil, &plain)
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	pw, sw, pc, sc := median(plain.wall), median(sealed.wall), mean(plain.cpu), mean(sealed.cpu)
	b.ReportMetric(ms(pw), "ms-unsealed")
	b.ReportMetric(ms(sw), "ms-sealed")
	b.ReportMetric(ms(sw-pw), "ms-seal")
	b.ReportMetric(ms(pc), "ms-cpu-unsealed")
	b.ReportMetric(ms(sc), "ms-cpu-sealed")
	b.ReportMetric(ms(sc-pc), "ms-cpu-seal")
}

func mean(d []time.Duration) time.Duration {
	var t time.Duration
	for _, x := range d {
		t += x
	}
	return t / time.Duration(len(d))
}

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}
