package engine

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// The command's output pipe, read by hypOutput itself (io.Copy hands it
// to ReadFrom): grown, and every byte through in order, whatever the
// chunks.
func TestHypOutputReadsItsPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	for i := range 20000 {
		fmt.Fprintf(&want, "line %d of a flood\n", i)
	}
	go func() {
		b := want.Bytes()
		for i := 0; i < len(b); i += 4096 {
			_, _ = w.Write(b[i:min(i+4096, len(b))])
		}
		w.Close()
	}()
	var got bytes.Buffer
	o := newHypOutput("h", nil, 0, nil, newEmitter("r", func(ev Event) {
		if ev.Kind == KindOutput {
			got.WriteString(ev.Text)
		}
	}, time.Now))
	n, err := io.Copy(o, r)
	if err != nil || n != int64(want.Len()) {
		t.Fatalf("copied %d bytes, %v; want %d", n, err, want.Len())
	}
	size, _, errno := syscall.Syscall(syscall.SYS_FCNTL, r.Fd(), 1032 /* F_GETPIPE_SZ */, 0)
	if errno != 0 || size < pipeSize {
		t.Errorf("the pipe holds %d bytes (%v), want %d", size, errno, pipeSize)
	}
	o.close()
	if got.String() != want.String() {
		t.Fatalf("the output events carry %d bytes, not the %d written", got.Len(), want.Len())
	}
}
