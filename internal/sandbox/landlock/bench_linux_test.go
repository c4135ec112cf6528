package landlock

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkStart: what sealing adds to one command start (/bin/true),
// side by side in one run: each iteration starts it plainly
// (syscall.ForkExec), sealed by Landlock alone, and sealed with the
// socket guard, and reports each one's mean as a metric:
// go test ./internal/sandbox/landlock -run '^$' -bench Start -benchtime 200x
func BenchmarkStart(b *testing.B) {
	if abi, why := Status(); abi == 0 {
		b.Skip("no Landlock: " + why)
	}
	p := Policy{Write: []string{b.TempDir()}, Devices: DefaultDevices}
	attr := &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}}
	wait := func(pid int, err error) {
		if err != nil {
			b.Fatal(err)
		}
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil || ws.ExitStatus() != 0 {
			b.Fatal(err, ws)
		}
	}
	var plain, sealed, guarded time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		wait(syscall.ForkExec("/bin/true", []string{"true"}, attr))
		t1 := time.Now()
		guardOff = true
		pid, _, err := ForkExecSealed(p, "/bin/true", []string{"true"}, attr)
		guardOff = false
		wait(pid, err)
		t2 := time.Now()
		pid, _, err = ForkExecSealed(p, "/bin/true", []string{"true"}, attr)
		wait(pid, err)
		t3 := time.Now()
		plain, sealed, guarded = plain+t1.Sub(t0), sealed+t2.Sub(t1), guarded+t3.Sub(t2)
	}
	n := float64(b.N)
	b.ReportMetric(float64(plain.Microseconds())/n, "µs-plain")
	b.ReportMetric(float64(sealed.Microseconds())/n, "µs-landlock")
	b.ReportMetric(float64(guarded.Microseconds())/n, "µs-landlock+guard")
}

// BenchmarkConnect: what the socket guard costs per connect(2) to a
// socket the command serves itself: a child connects b.N times, unsealed
// and sealed with the guard, and reports its own mean time per connect:
// go test ./internal/sandbox/landlock -run '^$' -bench Connect -benchtime 2000x
func BenchmarkConnect(b *testing.B) {
	if abi, why := Status(); abi == 0 {
		b.Skip("no Landlock: " + why)
	}
	dir := b.TempDir()
	sock := filepath.Join(dir, "s.sock")
	serve(&testing.T{}, "unix", sock)
	exe, _ := os.Executable()
	p := Policy{Write: []string{dir}, Devices: DefaultDevices}
	for _, guarded := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprint("ns-", guarded))
		attr := &syscall.ProcAttr{Env: append(os.Environ(), childEnv+"=connect"), Files: []uintptr{0, 1, 2}}
		argv := []string{exe, sock, strconv.Itoa(b.N), out}
		var pid int
		var err error
		if guarded {
			pid, _, err = ForkExecSealed(p, exe, argv, attr)
		} else {
			pid, err = syscall.ForkExec(exe, argv, attr)
		}
		if err != nil {
			b.Fatal(err)
		}
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil || ws.ExitStatus() != 0 {
			b.Fatal(err, ws.ExitStatus())
		}
		ns, _ := os.ReadFile(out)
		v, _ := strconv.ParseFloat(string(ns), 64)
		name := "µs/connect-unsealed"
		if guarded {
			name = "µs/connect-guarded"
		}
		b.ReportMetric(v/1000, name)
	}
}
