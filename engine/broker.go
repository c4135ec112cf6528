package engine

import (
	"sync"
)

// Broker hands a run's events to its consumers (the recorder, the TUI,
// --events, MCP progress) so that none of them slows the commands under
// test: Publish only queues, and each consumer has a goroutine of its own
// that delivers its queue in order. Before it, the engine called every
// sink in turn under its emit lock, so a TUI's unbuffered channel or a
// blocked --events reader held up every hypothesis writing output.
//
// Lifecycle events (run_started, hyp_started, hyp_finished, run_finished,
// and every kind but these two) are must-deliver: each consumer gets all
// of them, in order. Output deltas and test counts are lossy for a
// consumer that lags: a lossy consumer's queue holds at most
// MaxLaggingBytes of output text, beyond which further output events for
// it are dropped (counted in Dropped) and a newer tests event replaces a
// queued one of the same hypothesis. Event seq numbers then have gaps,
// which readers must expect (docs/events.md). A Lossless consumer (the
// run's record) gets every event: its queue is unbounded, its consumer
// never slows a command either.
type Broker struct {
	consumers []*consumer
	wg        sync.WaitGroup
}

// MaxLaggingBytes is how much output text a lossy consumer may lag by.
const MaxLaggingBytes = 4 << 20

// Consumer is one event consumer of a Broker.
type Consumer struct {
	Sink func(Event)
	// Lossless: the consumer gets every event, output included.
	Lossless bool
}

type consumer struct {
	Consumer
	mu      sync.Mutex
	wake    *sync.Cond
	queue   []Event
	bytes   int // output text queued
	closed  bool
	dropped int64 // output bytes dropped
}

// NewBroker starts a delivery goroutine per consumer; Close ends them.
func NewBroker(consumers ...Consumer) *Broker {
	b := &Broker{}
	for _, c := range consumers {
		if c.Sink == nil {
			continue
		}
		cs := &consumer{Consumer: c}
		cs.wake = sync.NewCond(&cs.mu)
		b.consumers = append(b.consumers, cs)
		b.wg.Add(1)
		go cs.deliver(&b.wg)
	}
	return b
}

// lossy reports whether ev may be dropped or replaced for a lagging
// consumer.
func lossy(ev Event) bool { return ev.Kind == KindOutput || ev.Kind == KindTests }

// Publish queues ev for every consumer; it never waits for one.
func (b *Broker) Publish(ev Event) {
	for _, c := range b.consumers {
		c.put(ev)
	}
}

func (c *consumer) put(ev Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	if !c.Lossless && lossy(ev) {
		switch ev.Kind {
		case KindOutput:
			if c.bytes+len(ev.Text) > MaxLaggingBytes {
				c.dropped += int64(len(ev.Text))
				return
			}
		case KindTests:
			// The counts are cumulative: a queued, undelivered tests
			// event of the same hypothesis (and attempt) is stale.
			for i := len(c.queue) - 1; i >= 0; i-- {
				q := c.queue[i]
				if !lossy(q) {
					break
				}
				if q.Kind == KindTests && q.Hyp == ev.Hyp && q.Attempt == ev.Attempt {
					c.queue = append(c.queue[:i], c.queue[i+1:]...)
					break
				}
			}
		}
	}
	if ev.Kind == KindOutput {
		c.bytes += len(ev.Text)
	}
	c.queue = append(c.queue, ev)
	c.wake.Signal()
}

func (c *consumer) deliver(wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		c.mu.Lock()
		for len(c.queue) == 0 && !c.closed {
			c.wake.Wait()
		}
		if len(c.queue) == 0 {
			c.mu.Unlock()
			return
		}
		batch := c.queue
		c.queue = nil
		for _, ev := range batch {
			if ev.Kind == KindOutput {
				c.bytes -= len(ev.Text)
			}
		}
		c.mu.Unlock()
		for _, ev := range batch {
			c.Sink(ev)
		}
	}
}

// Close waits until every consumer has been handed every event queued
// for it, then ends the delivery goroutines. Publish after Close drops.
func (b *Broker) Close() {
	for _, c := range b.consumers {
		c.mu.Lock()
		c.closed = true
		c.wake.Signal()
		c.mu.Unlock()
	}
	b.wg.Wait()
}

// Dropped is how many bytes of output each consumer missed because it
// lagged, in the order the consumers were given (0 for lossless ones).
func (b *Broker) Dropped() []int64 {
	out := make([]int64, len(b.consumers))
	for i, c := range b.consumers {
		c.mu.Lock()
		out[i] = c.dropped
		c.mu.Unlock()
	}
	return out
}
