package overlay

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// BenchmarkTunnel is the idle watch's cost on a tunnel's throughput:
// 16 MiB from an upstream through pipe (idleCopy, read deadlines, a
// 32 KiB buffer) against io.Copy both ways (splice(2) between the two
// sockets), alternating in each iteration; MB/s of each and their ratio.
func BenchmarkTunnel(b *testing.B) {
	const size = 16 << 20
	payload := make([]byte, size)
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer up.Close()
	go func() {
		for {
			c, err := up.Accept()
			if err != nil {
				return
			}
			go func() { c.Write(payload); c.Close() }()
		}
	}()
	plainPipe := func(a, c net.Conn) {
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { io.Copy(a, c); a.(*net.TCPConn).CloseWrite(); wg.Done() }()
		go func() { io.Copy(c, a); c.(*net.TCPConn).CloseWrite(); wg.Done() }()
		wg.Wait()
		a.Close()
		c.Close()
	}
	j := newFDBudgetOf(1<<16, 1).job()
	one := func(watched bool) float64 {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		defer ln.Close()
		go func() {
			var in net.Conn
			var err error
			if watched {
				in, err = j.accept(ln)
			} else {
				in, err = ln.Accept()
			}
			if err != nil {
				return
			}
			out, _ := net.Dial("tcp", up.Addr().String())
			if watched {
				pipe(in, out, in.(*budgetConn))
			} else {
				plainPipe(in, out)
			}
		}()
		c, _ := net.Dial("tcp", ln.Addr().String())
		t0 := nowNano()
		n, _ := io.Copy(io.Discard, c)
		c.Close()
		if n != size {
			b.Fatalf("%d bytes", n)
		}
		return float64(nowNano() - t0)
	}
	var w, p float64
	b.SetBytes(size)
	for i := 0; i < b.N; i++ {
		w += one(true)
		p += one(false)
	}
	b.ReportMetric(size/(w/float64(b.N))*1e3, "watched-MB/s")
	b.ReportMetric(size/(p/float64(b.N))*1e3, "splice-MB/s")
	b.ReportMetric(w/p, "watched/splice-time")
}

func nowNano() int64 { return time.Now().UnixNano() }
