package mcpserver

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

// liveRun is a run this server started, as its event stream (the
// engine's one stream, through the broker) tells it: what shadow_wait
// waits on, what shadow_show RUN shows while it runs, what progress
// notifications say. Nothing here ever makes the engine wait: observe
// only updates state under mu and wakes the waiters.
type liveRun struct {
	cancel  context.CancelFunc
	started chan struct{} // closed at run_started, or when the run ends without one
	done    chan struct{} // closed when the run has returned (rep or err set)

	mu        sync.Mutex
	id, ws    string
	begun     time.Time
	order     []string
	hyps      map[string]*hypLive
	cross     bool
	changed   chan struct{} // closed and replaced at each step a person would want told
	rep       *engine.Report
	err       error
	startOnce sync.Once
}

type hypLive struct {
	status   string
	since    time.Time // started, or finished
	lastOut  time.Time
	lastLine string
	tests    *engine.Tests
	result   *engine.Result
	attempt  int
}

func newLiveRun(ws string, cancel context.CancelFunc) *liveRun {
	return &liveRun{cancel: cancel, ws: ws, started: make(chan struct{}), done: make(chan struct{}),
		changed: make(chan struct{}), hyps: map[string]*hypLive{}, begun: time.Now()}
}

// observe is the run's event sink.
func (l *liveRun) observe(ev engine.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	wake := true
	switch ev.Kind {
	case engine.KindRunStarted:
		l.id = ev.Run
		l.begun = now
		for _, n := range ev.Hypotheses {
			if l.hyps[n] == nil {
				l.order = append(l.order, n)
				l.hyps[n] = &hypLive{status: engine.StatusQueued}
			}
		}
		l.startOnce.Do(func() { close(l.started) })
	case engine.KindHypStarted:
		h := l.hyp(ev.Hyp)
		h.status, h.since, h.lastOut, h.lastLine, h.tests, h.attempt = engine.StatusRunning, now, time.Time{}, "", nil, ev.Attempt
	case engine.KindOutput:
		h := l.hyp(ev.Hyp)
		h.lastOut = now
		if line := lastLine(ev.Text); line != "" {
			h.lastLine = line
		}
		wake = false
	case engine.KindTests:
		l.hyp(ev.Hyp).tests = ev.Tests
		wake = false
	case engine.KindHypFinished:
		h := l.hyp(ev.Hyp)
		h.result, h.since = ev.Result, now
		if ev.Result != nil {
			h.status = ev.Result.Status
		}
	case engine.KindCrossStarted:
		l.cross = true
	case engine.KindCrossFinished:
		l.cross = false
	case engine.KindRunFinished:
		l.rep = ev.Report
	default:
		wake = false
	}
	if wake {
		close(l.changed)
		l.changed = make(chan struct{})
	}
}

func (l *liveRun) hyp(name string) *hypLive {
	h := l.hyps[name]
	if h == nil {
		h = &hypLive{status: engine.StatusQueued}
		l.hyps[name] = h
		l.order = append(l.order, name)
	}
	return h
}

// finish records how the run ended; the waiters wake.
func (l *liveRun) finish(rep *engine.Report, err error) {
	l.mu.Lock()
	if rep != nil {
		l.rep = rep
		if l.id == "" {
			l.id = rep.Run
		}
	}
	l.err = err
	l.mu.Unlock()
	l.startOnce.Do(func() { close(l.started) })
	close(l.done)
}

// wake is the channel closed at the next step.
func (l *liveRun) wake() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.changed
}

func (l *liveRun) runID() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.id
}

// report is the run's final report, or nil while it runs.
func (l *liveRun) report() (*engine.Report, error) {
	select {
	case <-l.done:
	default:
		return nil, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rep, l.err
}

// finished is how many hypotheses have finished, of how many.
func (l *liveRun) finished() (done, total int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range l.order {
		if l.hyps[n].result != nil && l.hyps[n].status != engine.StatusRunning {
			done++
		}
	}
	return done, len(l.order)
}

// message is the run's state in a line a person understands: "3/5 done:
// plus passed, swap failed; running: baseline 40s (silent 30s); queued: x".
func (l *liveRun) message() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	var doneParts, running, queued []string
	for _, n := range l.order {
		h := l.hyps[n]
		switch {
		case h.status == engine.StatusQueued:
			queued = append(queued, n)
		case h.status == engine.StatusRunning:
			running = append(running, n+" "+h.activity(now))
		default:
			doneParts = append(doneParts, n+" "+h.status)
		}
	}
	s := fmt.Sprintf("%d/%d done", len(doneParts), len(l.order))
	if len(doneParts) > 0 {
		s += ": " + strings.Join(doneParts, ", ")
	}
	if len(running) > 0 {
		s += "; running: " + strings.Join(running, ", ")
	}
	if l.cross {
		s += "; running the candidates' proposed tests on each other"
	}
	if len(queued) > 0 {
		s += "; queued: " + strings.Join(queued, ", ")
	}
	if len(l.order) > 0 && len(doneParts) == len(l.order) && !l.cross {
		s += "; ranking"
	}
	return clipText(s, 600)
}

// activity is what a running hypothesis is doing: its tests so far, or
// that it prints nothing (a build), with how long.
func (h *hypLive) activity(now time.Time) string {
	s := fmt.Sprintf("%ds", int(now.Sub(h.since).Seconds()))
	if h.attempt > 1 {
		s += fmt.Sprintf(", rerun %d", h.attempt)
	}
	switch {
	case h.tests != nil && h.tests.Failed > 0:
		s += fmt.Sprintf(", failing: %d failed, %d passed so far", h.tests.Failed, h.tests.Passed)
	case h.tests != nil:
		s += fmt.Sprintf(", passing: %d passed so far", h.tests.Passed)
	case h.lastOut.IsZero():
		s += ", building or starting: no output yet"
	case now.Sub(h.lastOut) >= 10*time.Second:
		s += fmt.Sprintf(", silent for %ds after %q", int(now.Sub(h.lastOut).Seconds()), clipText(h.lastLine, 60))
	case h.lastLine != "":
		s += fmt.Sprintf(", printing %q", clipText(h.lastLine, 60))
	}
	return "(" + s + ")"
}

// lastLine is text's last line with something on it, ANSI escapes cut.
func lastLine(text string) string {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(plainText(lines[i])); l != "" {
			return l
		}
	}
	return ""
}

// doc is the run's RunDoc: the report's once it has ended, else its live
// state.
func (l *liveRun) doc() *RunDoc {
	if rep, _ := l.report(); rep != nil {
		return briefOf(rep)
	}
	msg := l.message()
	l.mu.Lock()
	defer l.mu.Unlock()
	d := &RunDoc{RunID: l.id, State: "running", DurationMS: time.Since(l.begun).Milliseconds(), Links: runLinks(l.id), Hypotheses: []HypBrief{}}
	lines := []string{"running: " + msg}
	for _, n := range l.order {
		h := l.hyps[n]
		b := HypBrief{Name: n, Status: h.status}
		if h.result != nil && h.status != engine.StatusRunning {
			b = briefHyp(h.result)
		} else if h.tests != nil {
			b.Tests = &BriefTests{Passed: h.tests.Passed, Failed: h.tests.Failed, Skipped: h.tests.Skipped}
		}
		d.Hypotheses = append(d.Hypotheses, b)
		lines = append(lines, hypLine(b, nil))
	}
	d.Summary = strings.Join(lines, "\n")
	return d
}

// escapes are the terminal escape sequences a command's output may hold
// (CSI, OSC, and two-byte ones): a progress message is shown to people,
// and what a hypothesis prints must not drive their terminal.
var escapes = regexp.MustCompile("\x1b\\[[0-?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(\x07|\x1b\\\\)?|\x1b.?")

// plainText is s without escape sequences and control characters.
func plainText(s string) string {
	s = escapes.ReplaceAllString(s, "")
	return strings.Map(func(r rune) rune {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}
