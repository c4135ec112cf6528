package engine

import (
	"sync"
	"time"
)

// emitter numbers events and hands them to the sink one at a time, so every
// consumer (printer, recorder, TUI) sees one ordered stream.
type emitter struct {
	mu   sync.Mutex
	seq  int64
	run  string
	sink func(Event)
	now  func() time.Time
}

func (e *emitter) emit(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seq++
	ev.Schema, ev.Seq, ev.Run = EventSchema, e.seq, e.run
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
