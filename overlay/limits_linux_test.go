package overlay

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/engine"
)

// runDefault runs sh -c script with the sandbox's default network and
// /tmp (Job.Net and Job.Tmp "").
func runDefault(sb *Sandbox, ws, name, script string) (engine.Outcome, string, error) {
	var out bytes.Buffer
	o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Hyp: engine.Hypothesis{Name: name},
		Command: []string{"sh", "-c", script}, Env: os.Environ(), Output: &out})
	return o, out.String(), err
}

// userTasks counts the tasks (threads included) uid runs: what
// RLIMIT_NPROC is checked against.
func userTasks(uid int) int {
	n := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		var u, threads int
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 {
				switch f[0] {
				case "Uid:":
					u, _ = strconv.Atoi(f[1])
				case "Threads:":
					threads, _ = strconv.Atoi(f[1])
				}
			}
		}
		if u == uid {
			n += threads
		}
	}
	return n
}

// A fork bomb (bounded: 400 sleeps) in one hypothesis while the user's
// own process limit is close: the bomb gets no more than its cap, the
// sibling started during the bomb still starts and passes, and shadow
// (this process, whose Go runtime aborts when pthread_create fails) keeps
// making threads. Before the caps the bomb took the user's whole
// RLIMIT_NPROC: the sibling failed to start (EAGAIN) and shadow crashed.
func TestForkBombLeavesSiblingAndShadow(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed (the bomb)")
	}
	sb := needOverlay(t)
	if !ProbeLimits().Pids {
		t.Skipf("no per-hypothesis process cap on this machine: %s", ProbeLimits().Why)
	}
	const capPids = 64
	if err := sb.Limit(Limits{Pids: capPids, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	ws := workspace(t)
	if os.Geteuid() != 0 {
		// Leave the user 250 tasks of headroom: the bomb alone would take
		// them all without a per-hypothesis cap.
		var old unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_NPROC, &old); err != nil {
			t.Fatal(err)
		}
		lim := uint64(userTasks(os.Getuid()) + 250)
		if lim < old.Cur {
			if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: lim, Max: old.Max}); err != nil {
				t.Fatal(err)
			}
			defer unix.Setrlimit(unix.RLIMIT_NPROC, &old)
		}
	}
	var wg sync.WaitGroup
	var bombBuf lockedBuffer
	var bombO engine.Outcome
	wg.Add(1)
	go func() {
		defer wg.Done()
		bombO, _ = sb.Run(context.Background(), engine.Job{Workspace: ws, Hyp: engine.Hypothesis{Name: "bomb"},
			Command: []string{"sh", "-c", `
			python3 -c '
import os, time
fails = 0
for i in range(400):
    try:
        if os.fork() == 0:
            time.sleep(8)
            os._exit(0)
    except OSError:
        fails += 1
print("STARTED", sum(1 for d in os.listdir("/proc") if d.isdigit()), "failed forks", fails, flush=True)
try:
    while True:
        os.wait()
except ChildProcessError:
    pass
'
			true`}, Env: os.Environ(), Output: &bombBuf})
	}()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(bombBuf.String(), "STARTED") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	// shadow itself makes threads while the bomb is at its cap.
	var tw sync.WaitGroup
	for i := 0; i < 20; i++ {
		tw.Add(1)
		go func() {
			defer tw.Done()
			_, _ = exec.Command("true").CombinedOutput()
		}()
	}
	tw.Wait()
	o, out, err := runDefault(sb, ws, "sibling", `echo SIBLING-RAN`)
	if err != nil || o.ExitCode != 0 || !strings.Contains(out, "SIBLING-RAN") {
		t.Errorf("the sibling started during the bomb did not pass: exit %d, %v:\n%s", o.ExitCode, err, out)
	}
	wg.Wait()
	bombOut := bombBuf.String()
	var procs int
	if i := strings.Index(bombOut, "STARTED "); i >= 0 {
		fmt.Sscanf(bombOut[i+len("STARTED "):], "%d", &procs)
	}
	if procs == 0 || procs > capPids+2 {
		t.Errorf("the bomb ran %d processes at once, want at most the cap %d (exit %d %s):\n%s", procs, capPids, bombO.ExitCode, bombO.Signal, bombOut)
	}
	if bombO.Limits == nil || bombO.Limits.Pids == 0 || bombO.Limits.Pids > capPids || bombO.Limits.OOMScoreAdj != OOMScoreAdj {
		t.Errorf("limits reported %+v, want pids <= %d and oom_score_adj %d", bombO.Limits, capPids, OOMScoreAdj)
	}
}

// A hypothesis filling memory (its own /dev/shm, which tmpfs charges to
// the writer's memory cgroup) under --memory is stopped at the cap while
// a sibling keeps running and passes; the report says the cap and a peak.
// Without a memory cgroup, --memory is refused rather than ignored.
func TestMemoryFillerUnderCap(t *testing.T) {
	sb := needOverlay(t)
	const capBytes = 96 << 20
	if !ProbeLimits().Memory {
		if err := sb.Limit(Limits{MemoryBytes: capBytes}); err == nil || !strings.Contains(err.Error(), "--memory") {
			t.Fatalf("--memory without a memory cgroup: want a refusal, got %v", err)
		}
		return
	}
	if err := sb.Limit(Limits{MemoryBytes: capBytes}); err != nil {
		t.Fatal(err)
	}
	ws := workspace(t)
	var wg sync.WaitGroup
	var sibO engine.Outcome
	var sibOut string
	var sibErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		sibO, sibOut, sibErr = runDefault(sb, ws, "sibling", `sleep 3; echo SIBLING-ALIVE`)
	}()
	o, out, err := runDefault(sb, ws, "filler", `
		dd if=/dev/zero of=/dev/shm/fill bs=1M count=400 2>&1 | tail -1
		python3 -c 'b = bytearray(400 << 20); print("ALLOCATED")' 2>&1 | tail -1
		true`)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "ALLOCATED") {
		t.Errorf("the filler allocated 400 MB under a %d MB cap:\n%s", capBytes>>20, out)
	}
	if o.Limits == nil || o.Limits.MemoryBytes != capBytes {
		t.Errorf("limits %+v, want memory_bytes %d", o.Limits, capBytes)
	}
	if o.PeakMemoryBytes == nil || *o.PeakMemoryBytes <= 0 || *o.PeakMemoryBytes > capBytes+(8<<20) {
		t.Errorf("peak memory %v, want within the cap %d", o.PeakMemoryBytes, capBytes)
	}
	if sibErr != nil || sibO.ExitCode != 0 || !strings.Contains(sibOut, "SIBLING-ALIVE") {
		t.Errorf("the sibling did not survive the filler: exit %d, %v:\n%s", sibO.ExitCode, sibErr, sibOut)
	}
}

// --host-port N: the host's 127.0.0.1:N is reachable at the hypothesis's
// own 127.0.0.1:N; another host port is not.
func TestHostPortReachesOnlyThatPort(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed (the client)")
	}
	sb := needOverlay(t)
	serve := func(secret string) (int, func()) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				fmt.Fprintln(c, secret)
				c.Close()
			}
		}()
		return l.Addr().(*net.TCPAddr).Port, func() { l.Close() }
	}
	allowed, stop1 := serve("ALLOWED-SERVICE")
	defer stop1()
	other, stop2 := serve("OTHER-SERVICE")
	defer stop2()
	sb.HostPorts(allowed)
	ws := workspace(t)
	_, out, err := runDefault(sb, ws, "h", fmt.Sprintf(`python3 -c '
import socket
for p in [%d, %d]:
    try:
        c = socket.create_connection(("127.0.0.1", p), timeout=3)
        print("GOT", c.recv(100).decode().strip(), flush=True)
    except Exception as e:
        print("refused", p, e, flush=True)
'`, allowed, other))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "GOT ALLOWED-SERVICE") {
		t.Errorf("--host-port %d not reachable:\n%s", allowed, out)
	}
	if strings.Contains(out, "OTHER-SERVICE") {
		t.Errorf("a host port not given with --host-port was reachable:\n%s", out)
	}
}

// The outbound proxy refuses this host's own addresses: a hypothesis
// cannot reach a host service by asking the proxy for it.
func TestProxyRefusesHostAddresses(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed (the client)")
	}
	sb := needOverlay(t)
	l, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			fmt.Fprint(c, "HTTP/1.0 200 OK\r\n\r\nPROXIED-HOST-SECRET")
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	var targets []string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
			targets = append(targets, fmt.Sprintf("%s:%d", n.IP, port))
		}
	}
	targets = append(targets, fmt.Sprintf("localhost:%d", port), fmt.Sprintf("0.0.0.0:%d", port))
	ws := workspace(t)
	_, out, err := runDefault(sb, ws, "h", `python3 -c '
import os, socket
proxy = os.environ.get("HTTPS_PROXY", "")
print("PROXY", proxy, flush=True)
host, port = proxy.rsplit("/", 1)[-1].rsplit(":", 1)
for t in "`+strings.Join(targets, " ")+`".split():
    try:
        c = socket.create_connection((host, int(port)), timeout=5)
        c.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (t, t)).encode())
        c.settimeout(5)
        data = b""
        while True:
            b = c.recv(4096)
            if not b: break
            data += b
            if b"SECRET" in data: break
        print(t, data.decode(errors="replace").replace("\r\n", " | ")[:200], flush=True)
    except Exception as e:
        print(t, "error", e, flush=True)
'`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "PROXY http://127.0.0.1:") {
		t.Errorf("no proxy in the default network's environment:\n%s", out)
	}
	if strings.Contains(out, "PROXIED-HOST-SECRET") {
		t.Errorf("the proxy reached a service of this host:\n%s", out)
	}
}

// lockedBuffer is a bytes.Buffer safe to read while the job writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
