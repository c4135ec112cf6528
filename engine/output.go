package engine

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/shadow-dev/shadow/engine/judge"
	"github.com/shadow-dev/shadow/parse"
)

// TestParser reads test counts from a command's output as it streams.
// parse.Stream implements it; main wires it in, tests may fake it.
type TestParser interface {
	io.Writer
	Live() *parse.Summary
	Final() *parse.Summary
}

// coalesce is how long output may wait before it is sent as an event: fast
// printers produce one event per interval instead of one per write.
const coalesce = 100 * time.Millisecond

// hypOutput receives a hypothesis's merged stdout and stderr: the full log
// file, the bounded tail, the test parser and the live event stream.
type hypOutput struct {
	mu      sync.Mutex
	hyp     string
	log     *cappedLog
	logErr  error // the log's first write error: the stored output is incomplete
	tail    tail
	parser  TestParser
	view    *judge.CanaryView // what is shown of the output: never the canary (engine/judge/canary_view.go)
	pending []byte
	bytes   int64
	live    *Tests
	dirty   bool // live counts changed since the last tests event
	em      *emitter
	stop    chan struct{}
	stopped chan struct{}
}

func newHypOutput(hyp string, log *os.File, maxOutput int64, parser TestParser, em *emitter) *hypOutput {
	o := &hypOutput{hyp: hyp, parser: parser, em: em, stop: make(chan struct{}), stopped: make(chan struct{})}
	if log != nil {
		o.log = newCappedLog(log, maxOutput)
	}
	go o.ticker()
	return o
}

func (o *hypOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.bytes += int64(len(p))
	n := len(p)
	if o.parser != nil {
		_, _ = o.parser.Write(p) // the output as printed: the canary's judge reads it
	}
	if o.view != nil {
		p = o.view.Write(p)
	}
	if o.log != nil {
		o.log.Write(p)
	}
	if o.parser != nil {
		if s := o.parser.Live(); s != nil {
			t := toTests(s)
			if o.live == nil || *o.live != *t {
				o.live, o.dirty = t, true
			}
		}
	}
	o.pending = o.tail.feed(o.pending, p)
	if len(o.pending) >= 64<<10 {
		o.flushLocked()
	}
	return n, nil
}

func (o *hypOutput) ticker() {
	defer close(o.stopped)
	t := time.NewTicker(coalesce)
	defer t.Stop()
	for {
		select {
		case <-o.stop:
			return
		case <-t.C:
			o.mu.Lock()
			o.flushLocked()
			o.mu.Unlock()
		}
	}
}

func (o *hypOutput) flushLocked() {
	if len(o.pending) > 0 {
		o.em.emit(Event{Kind: KindOutput, Hyp: o.hyp, Text: string(o.pending)})
		o.pending = o.pending[:0]
	}
	if o.dirty {
		t := *o.live
		o.em.emit(Event{Kind: KindTests, Hyp: o.hyp, Tests: &t})
		o.dirty = false
	}
}

// close ends the stream: the last partial line is sent, and the final test
// summary returned.
func (o *hypOutput) close() *parse.Summary {
	close(o.stop)
	<-o.stopped
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.view != nil {
		if rest := o.view.Flush(); len(rest) > 0 {
			if o.log != nil {
				o.log.Write(rest)
			}
			o.pending = o.tail.feed(o.pending, rest)
		}
	}
	if s := o.tail.flush(); s != "" {
		o.pending = append(o.pending, s...)
	}
	o.flushLocked()
	if o.log != nil {
		o.logErr = o.log.close()
	}
	if o.parser == nil {
		return nil
	}
	return o.parser.Final()
}

// logWarning is what the result must say about the stored log, or "": a
// log that could not be created or written (a full state filesystem)
// holds less than the command printed.
func (o *hypOutput) logWarning(path string, createErr error) string {
	switch {
	case createErr != nil:
		return fmt.Sprintf("the output log could not be created (%v): the output is not stored, only its tail in this report", createErr)
	case o.logErr != nil:
		return fmt.Sprintf("the output log %s could not be written whole (%v): it holds less than the %d bytes the command printed", path, o.logErr, o.bytes)
	}
	return ""
}

func toTests(s *parse.Summary) *Tests {
	if s == nil {
		return nil
	}
	return &Tests{Framework: s.Framework, Passed: s.Passed, Failed: s.Failed, Skipped: s.Skipped}
}
