package overlay

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Every connection a hypothesis opens to its proxy or a --host-port is a
// descriptor of shadow's own (it accepts it, and dials the other end):
// one hypothesis holding idle connections took shadow to 19,999 of its
// 20,000 descriptors, and its siblings then failed to start (`open
// /dev/null: too many open files`). So the descriptors the forwarding of
// all hypotheses holds are bounded (fdBudget): RLIMIT_NOFILE less a
// reserve that shadow's own work (logs, pipes, sandboxes, records) always
// has, each hypothesis at most an equal share of the rest. A hypothesis
// at its share is not refused: its next connection waits in the
// listener's accept queue (the kernel's, in its own network namespace: no
// descriptor of shadow's) until one of its own closes. A connection idle
// in both directions for connIdle is closed, so a hoarder's share comes
// back by itself.

// Descriptor counts of the budget (docs/cli.md, --net).
const (
	fdReserveMin = 512  // shadow's own reserve, at least...
	fdReserveDiv = 4    // ... and a quarter of RLIMIT_NOFILE
	fdJobMax     = 1024 // a hypothesis's share at most (512 connections)
	fdJobMin     = 16   // and at least, whatever the limit
	fdPerConn    = 2    // the accepted connection and the one dialled for it
)

// connIdle closes a connection idle both ways this long; keepAliveIdle a
// client's keep-alive connection between two requests. Tests shorten them
// (idleScale, an atomic: handlers a test started may still be reading
// them when it restores the default).
func connIdle() time.Duration      { return scaled(2 * time.Minute) }
func keepAliveIdle() time.Duration { return scaled(time.Minute) }

// idleScale, when set, replaces both limits (in ns); 0: the defaults.
var idleScale atomic.Int64

func scaled(d time.Duration) time.Duration {
	if v := idleScale.Load(); v != 0 {
		return time.Duration(v)
	}
	return d
}

// fdBudget is the descriptors all hypotheses' forwarding may hold.
type fdBudget struct {
	mu     sync.Mutex
	cond   *sync.Cond
	used   int
	total  int
	perJob int
}

// newFDBudget sizes the budget from the process's RLIMIT_NOFILE (the Go
// runtime raised the soft limit to the hard one at start) for jobs
// hypotheses at once.
func newFDBudget(jobs int) *fdBudget {
	limit := 1024
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && rl.Cur > 0 && rl.Cur < 1<<30 {
		limit = int(rl.Cur)
	}
	return newFDBudgetOf(limit, jobs)
}

func newFDBudgetOf(limit, jobs int) *fdBudget {
	jobs = max(jobs, 1)
	reserve := max(fdReserveMin, limit/fdReserveDiv)
	total := max(limit-reserve, fdJobMin)
	b := &fdBudget{total: total, perJob: min(fdJobMax, max(total/jobs, fdJobMin))}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// jobFDs is one hypothesis's part of the budget.
type jobFDs struct {
	b      *fdBudget
	used   int
	closed bool
}

func (b *fdBudget) job() *jobFDs { return &jobFDs{b: b} }

// acquire takes n descriptors for the job, waiting while the job is at
// its share or the whole budget is spent; false once the job is closed.
func (j *jobFDs) acquire(n int) bool {
	b := j.b
	b.mu.Lock()
	defer b.mu.Unlock()
	for !j.closed && (j.used+n > b.perJob || b.used+n > b.total) {
		b.cond.Wait()
	}
	if j.closed {
		return false
	}
	j.used += n
	b.used += n
	return true
}

func (j *jobFDs) release(n int) {
	b := j.b
	b.mu.Lock()
	j.used -= n
	b.used -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// close ends the job's waits.
func (j *jobFDs) close() {
	j.b.mu.Lock()
	j.closed = true
	j.b.mu.Unlock()
	j.b.cond.Broadcast()
}

// budgetConn gives its descriptors back on its first Close.
type budgetConn struct {
	net.Conn
	once sync.Once
	j    *jobFDs
	n    int
	// last is the last time bytes went either way (UnixNano).
	last atomic.Int64
}

func (c *budgetConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.j.release(c.n) })
	return err
}

func (c *budgetConn) touch() { c.last.Store(time.Now().UnixNano()) }

func (c *budgetConn) idleFor() time.Duration {
	return time.Since(time.Unix(0, c.last.Load()))
}

// accept waits for the job's share to have room for one connection, then
// accepts one; the connection holds fdPerConn descriptors of the budget
// until closed.
func (j *jobFDs) accept(ln net.Listener) (*budgetConn, error) {
	if !j.acquire(fdPerConn) {
		return nil, net.ErrClosed
	}
	c, err := ln.Accept()
	if err != nil {
		j.release(fdPerConn)
		return nil, err
	}
	bc := &budgetConn{Conn: c, j: j, n: fdPerConn}
	bc.touch()
	return bc, nil
}

// idleCopy copies src to dst until src ends, closing both when neither
// way has moved a byte for connIdle (activity is c's, shared by both
// ways of a tunnel).
func idleCopy(dst, src net.Conn, c *budgetConn) error {
	buf := make([]byte, 32<<10)
	for {
		_ = src.SetReadDeadline(time.Now().Add(connIdle()))
		n, err := src.Read(buf)
		if n > 0 {
			c.touch()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				if c.idleFor() < connIdle() {
					continue // the other way is busy
				}
				dst.Close()
				src.Close()
			}
			return err
		}
	}
}
