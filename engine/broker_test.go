package engine

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// chattySandbox writes n chunks of output per hypothesis, then passes.
type chattySandbox struct{ chunks, size int }

func (s chattySandbox) Mode() Mode     { return "fake" }
func (s chattySandbox) Parallel() bool { return true }
func (s chattySandbox) Run(ctx context.Context, job Job) (Outcome, error) {
	line := strings.Repeat("x", s.size-len("ok t1\n")) + "\n"
	for i := 0; i < s.chunks; i++ {
		job.Output.Write([]byte(line))
	}
	job.Output.Write([]byte("ok t1\n"))
	return Outcome{}, nil
}

// A consumer that blocks (a stuck screen, an --events reader that stopped
// reading) does not slow the commands: the run ends while it is stuck,
// with 12 MiB of output it could not take; once it reads again it gets
// every lifecycle event, in order, and a consumer that kept up got all the
// output. Before the broker the engine called each sink in turn under its
// emit lock, so this run waited for the stuck one.
func TestStuckConsumerDoesNotSlowTheCommands(t *testing.T) {
	stuck := make(chan struct{})
	var mu sync.Mutex
	var slow, fast []Event
	slowSink := func(ev Event) {
		<-stuck
		mu.Lock()
		slow = append(slow, ev)
		mu.Unlock()
	}
	var fastBytes int
	fastSink := func(ev Event) {
		mu.Lock()
		fast = append(fast, ev)
		if ev.Kind == KindOutput {
			fastBytes += len(ev.Text)
		}
		mu.Unlock()
	}
	b := NewBroker(Consumer{Sink: slowSink}, Consumer{Sink: fastSink, Lossless: true})
	sb := chattySandbox{chunks: 3072, size: 2048} // 6 MiB per hypothesis
	cfg, _ := testConfig(t, sb, hyp("a"), hyp("b"))
	cfg.Emit = b.Publish
	cfg.MaxOutput = 64 << 20
	done := make(chan *Report)
	go func() { done <- Run(context.Background(), cfg) }()
	var rep *Report
	select {
	case rep = <-done:
	case <-time.After(60 * time.Second):
		close(stuck)
		t.Fatal("the run did not end while a consumer was stuck: a consumer slows the commands")
	}
	close(stuck)
	b.Close()
	if rep.Winner == nil {
		t.Errorf("no winner: %+v", rep)
	}
	if d := b.Dropped(); d[0] == 0 || d[1] != 0 {
		t.Errorf("dropped bytes: stuck consumer %d (want > 0), lossless consumer %d (want 0)", d[0], d[1])
	}
	// (the engine's own event text may trim a little: the bound is not the broker's)
	if want := 2 * 3072 * 2048; fastBytes < want*99/100 {
		t.Errorf("the lossless consumer got %d bytes of output, want all %d", fastBytes, want)
	}
	lifecycle := func(evs []Event) []string {
		var out []string
		var last int64
		for _, ev := range evs {
			if ev.Seq <= last {
				t.Errorf("seq %d after %d: out of order", ev.Seq, last)
			}
			last = ev.Seq
			if !lossy(ev) {
				out = append(out, ev.Kind+":"+ev.Hyp)
			}
		}
		return out
	}
	ls, lf := lifecycle(slow), lifecycle(fast)
	if strings.Join(ls, " ") != strings.Join(lf, " ") {
		t.Errorf("the stuck consumer's lifecycle events differ:\n%v\n%v", ls, lf)
	}
	if len(ls) < 6 || ls[0] != "run_started:" || ls[len(ls)-1] != "run_finished:" {
		t.Errorf("lifecycle events %v", ls)
	}
	for _, h := range []string{"a", "b"} {
		if !strings.Contains(strings.Join(ls, " "), "hyp_started:"+h) || !strings.Contains(strings.Join(ls, " "), "hyp_finished:"+h) {
			t.Errorf("hypothesis %s's start or finish is missing: %v", h, ls)
		}
	}
}

// A lagging consumer keeps only the newest test counts of a hypothesis.
func TestLaggingConsumerGetsTheNewestCounts(t *testing.T) {
	stuck := make(chan struct{})
	var got []Event
	b := NewBroker(Consumer{Sink: func(ev Event) { <-stuck; got = append(got, ev) }})
	b.Publish(Event{Seq: 1, Kind: KindHypStarted, Hyp: "a"})
	time.Sleep(50 * time.Millisecond) // the sink now holds seq 1
	for i := 2; i <= 10; i++ {
		b.Publish(Event{Seq: int64(i), Kind: KindTests, Hyp: "a", Tests: &Tests{Passed: i}})
	}
	b.Publish(Event{Seq: 11, Kind: KindHypFinished, Hyp: "a"})
	close(stuck)
	b.Close()
	var kinds []string
	for _, ev := range got {
		kinds = append(kinds, ev.Kind)
	}
	if strings.Join(kinds, ",") != "hyp_started,tests,hyp_finished" || got[1].Tests.Passed != 10 {
		t.Errorf("got %v (tests %+v)", kinds, got[1].Tests)
	}
}
