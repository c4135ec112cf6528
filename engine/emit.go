package engine

import (
	"sync"
	"time"
)

// emitter numbers events and hands them to the sink one at a time, so every
// consumer (printer, recorder, TUI) sees one ordered stream. An emitter made
// by forAttempt shares the stream and stamps its events with a rerun's
// attempt number.
type emitter struct {
	*stream
	attempt int
}

type stream struct {
	mu   sync.Mutex
	seq  int64
	run  string
	sink func(Event)
	now  func() time.Time
}

func newEmitter(run string, sink func(Event), now func() time.Time) *emitter {
	return &emitter{stream: &stream{run: run, sink: sink, now: now}}
}

// forAttempt returns an emitter on the same stream whose events carry
// attempt (0 or 1: the first run, no stamp).
func (e *emitter) forAttempt(attempt int) *emitter {
	if attempt <= 1 {
		attempt = 0
	}
	return &emitter{stream: e.stream, attempt: attempt}
}

func (e *emitter) emit(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seq++
	ev.Schema, ev.Seq, ev.Run = EventSchema, e.seq, e.run
	if ev.Attempt == 0 {
		ev.Attempt = e.attempt
	}
	if ev.Time.IsZero() {
		ev.Time = e.now()
	}
	if e.sink != nil {
		e.sink(ev)
	}
}

// Fanout returns a sink that calls each of sinks in order.
func Fanout(sinks ...func(Event)) func(Event) {
	return func(ev Event) {
		for _, s := range sinks {
			if s != nil {
				s(ev)
			}
		}
	}
}
