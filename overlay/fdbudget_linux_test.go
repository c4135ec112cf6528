package overlay

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// The budget's arithmetic: a reserve that is at least fdReserveMin and a
// quarter of the limit, an equal share per job within [fdJobMin,
// fdJobMax].
func TestFDBudgetKeepsAReserveAndSharesTheRest(t *testing.T) {
	for _, c := range []struct{ limit, jobs, total, perJob int }{
		{20000, 4, 15000, 1024},
		{4096, 2, 3072, 1024},
		{4096, 8, 3072, 384},
		{1024, 4, 512, 128},
		{256, 4, 16, 16},
	} {
		b := newFDBudgetOf(c.limit, c.jobs)
		if b.total != c.total || b.perJob != c.perJob {
			t.Errorf("limit %d jobs %d: total %d per job %d, want %d %d", c.limit, c.jobs, b.total, b.perJob, c.total, c.perJob)
		}
	}
}

// A hoarder at its share waits for its own connections; a sibling still
// gets its own share, and the job's end releases the hoarder's waiter.
func TestFDBudgetAHoarderWaitsForItself(t *testing.T) {
	b := newFDBudgetOf(1000, 4) // total 500, 125 per job
	hoarder, sibling := b.job(), b.job()
	for hoarder.acquire(fdPerConn) {
		if hoarder.used >= b.perJob-1 {
			break
		}
	}
	waited := make(chan bool)
	go func() { waited <- hoarder.acquire(fdPerConn) }()
	select {
	case <-waited:
		t.Fatal("the hoarder got past its share")
	case <-time.After(50 * time.Millisecond):
	}
	for i := 0; i < 10; i++ {
		if !sibling.acquire(fdPerConn) {
			t.Fatal("the sibling was refused")
		}
	}
	hoarder.close()
	if <-waited {
		t.Error("a closed job's waiter got descriptors")
	}
	if b.used != hoarder.used+sibling.used {
		t.Errorf("budget used %d, jobs %d+%d", b.used, hoarder.used, sibling.used)
	}
}

// Through the proxy itself: connections beyond the share stay in the
// kernel's accept queue (shadow holds no descriptor for them), and one
// idle both ways for connIdle is closed, which lets a queued one in.
func TestProxyConnectionsBeyondTheShareWaitAndIdleOnesClose(t *testing.T) {
	idleScale.Store(int64(300 * time.Millisecond))
	defer idleScale.Store(0)

	b := newFDBudgetOf(0, 1) // the floor: fdJobMin, 8 connections
	j := b.job()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	p := newOutboundProxy()
	go p.serve(ln, j, func(io.Closer) bool { return true })
	perJob := b.perJob / fdPerConn
	var conns []net.Conn
	for i := 0; i < perJob+4; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	time.Sleep(100 * time.Millisecond)
	b.mu.Lock()
	used := j.used
	b.mu.Unlock()
	if used != b.perJob {
		t.Errorf("%d descriptors held for %d connections, want the share %d", used, len(conns), b.perJob)
	}
	// The last one is queued: it is served once the idle ones close.
	last := conns[len(conns)-1]
	last.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := last.Write([]byte("CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(last).ReadString('\n')
	if err != nil || !strings.Contains(line, "502") {
		t.Fatalf("the queued connection: %q %v (want the proxy's refusal of this host)", line, err)
	}
	// The idle ones were closed by the proxy.
	conns[0].SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, err := conns[0].Read(make([]byte, 1)); err == nil || n != 0 {
		t.Errorf("an idle connection is still open: %d %v", n, err)
	}
}
