package engine

import (
	"errors"
	"io"
	"syscall"
	"time"
)

// A command that floods its output writes it in stdio's blocks (4 KiB
// into a pipe), and a reader that keeps up wakes once per block: a read,
// a read that would block, the poller, two goroutine switches, for ~60
// lines. hypOutput reads its pipe itself instead (os/exec's copy hands
// the pipe to an io.ReaderFrom, io.Copy): with the pipe grown to
// pipeSize (fcntl(2) F_SETPIPE_SZ), after a read that found a full block
// it waits batchWait before the next, so each wake takes what the command
// wrote meanwhile, up to a read buffer's worth. A command printing now
// and then is read at once; the wait only delays a flood's output by
// batchWait, far below the events' coalescing.
const (
	pipeSize  = 512 << 10
	readBuf   = 256 << 10
	fullBlock = 4 << 10
	batchWait = time.Millisecond
	// writeChunk is how much of a read each Write gets: the pending
	// output's flush threshold then cuts events as a 32 KiB read did.
	writeChunk = 32 << 10
)

// ReadFrom copies r (the command's output pipe) into o until EOF.
func (o *hypOutput) ReadFrom(r io.Reader) (int64, error) {
	wait := false
	if sc, ok := r.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			wait = growPipe(rc, pipeSize)
		}
	}
	buf := make([]byte, readBuf)
	var total int64
	for {
		n, err := r.Read(buf)
		for p := buf[:n]; len(p) > 0; {
			k := min(len(p), writeChunk)
			_, _ = o.Write(p[:k])
			p = p[k:]
		}
		total += int64(n)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return total, nil
			}
			return total, err
		}
		if wait && n >= fullBlock && n < len(buf) {
			time.Sleep(batchWait)
		}
	}
}
