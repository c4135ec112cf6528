package snap

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

// Follow kinds.
const (
	FollowRun   = "run"   // a run was found; Meta is set (nil if not yet written)
	FollowEvent = "event" // one new line of its event log; Event is set
	FollowEnd   = "end"   // the run has ended; State says how (finished or interrupted)
)

// Followed is one thing a follower saw.
type Followed struct {
	Kind  string
	Run   string // run id
	Dir   string // run folder
	Meta  *Meta
	Event *engine.Event
	State string // for FollowEnd: StateFinished or StateInterrupted
}

// FollowOptions tune Follow.
type FollowOptions struct {
	// All replays every recorded run, finished ones included. Without it
	// only runs not finished when Follow starts, and runs started later,
	// are followed (each from its first event).
	All bool
	// Poll is the interval between looks at the folder (default 150ms).
	Poll time.Duration
}

// Follow watches a workspace's records (wsDir is Store.WorkspaceDir(ws)) and
// yields each run other processes record there, then each event as it is
// appended, then the run's end. Lines are yielded only once complete: a
// writer's partial last line waits for its newline (a recorder killed
// mid-line leaves it, and it is dropped when the run is found
// interrupted). Runs are yielded oldest first, events of one run in order.
// The channel is closed when ctx ends.
func Follow(ctx context.Context, wsDir string, opt FollowOptions) <-chan Followed {
	if opt.Poll <= 0 {
		opt.Poll = 150 * time.Millisecond
	}
	ch := make(chan Followed, 64)
	go func() {
		defer close(ch)
		f := &follower{dir: filepath.Join(wsDir, "runs"), runs: map[string]*tailed{}, out: ch, ctx: ctx}
		first := true
		for {
			if !f.scan(first, opt.All) {
				return
			}
			first = false
			select {
			case <-ctx.Done():
				return
			case <-time.After(opt.Poll):
			}
		}
	}()
	return ch
}

type tailed struct {
	id      string
	dir     string
	off     int64
	partial []byte
	done    bool
}

type follower struct {
	dir  string
	runs map[string]*tailed
	out  chan<- Followed
	ctx  context.Context
}

func (f *follower) send(v Followed) bool {
	select {
	case f.out <- v:
		return true
	case <-f.ctx.Done():
		return false
	}
}

// scan looks once at every run; it returns false when ctx ended.
func (f *follower) scan(first, all bool) bool {
	ids, _ := listRunIDs(f.dir)
	for _, id := range ids {
		t, ok := f.runs[id]
		if !ok {
			t = &tailed{id: id, dir: filepath.Join(f.dir, id)}
			_, rerr := os.Stat(filepath.Join(t.dir, "report.json"))
			if first && !all && rerr == nil {
				t.done = true // finished before we started
				f.runs[id] = t
				continue
			}
			m := readMeta(t.dir)
			if m == nil && rerr != nil && young(t.dir) {
				continue // its recorder is writing meta.json: next look
			}
			f.runs[id] = t
			if !f.send(Followed{Kind: FollowRun, Run: id, Dir: t.dir, Meta: m}) {
				return false
			}
		}
		if t.done {
			continue
		}
		if !f.tail(t) {
			return false
		}
	}
	return true
}

func readMeta(dir string) *Meta {
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return nil
	}
	var m Meta
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return &m
}

// tail yields the run's new complete lines, and its end once its report
// exists (or its recorder is gone) and its log is read to the end.
func (f *follower) tail(t *tailed) bool {
	// Decide whether the run has ended before reading, so every line
	// written before the end is read below.
	_, err := os.Stat(filepath.Join(t.dir, "report.json"))
	state := ""
	if err == nil {
		state = StateFinished
	} else if m := readMeta(t.dir); m != nil {
		if !recorderAlive(m) {
			state = StateInterrupted
		}
	} else if !young(t.dir) {
		state = StateInterrupted
	}
	if fh, err := os.Open(filepath.Join(t.dir, "events.ndjson")); err == nil {
		_, _ = fh.Seek(t.off, io.SeekStart)
		buf, _ := io.ReadAll(fh)
		fh.Close()
		t.off += int64(len(buf))
		data := append(t.partial, buf...)
		for {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				break
			}
			line := bytes.TrimSpace(data[:i])
			data = data[i+1:]
			if len(line) == 0 {
				continue
			}
			var ev engine.Event
			if json.Unmarshal(line, &ev) != nil {
				continue
			}
			if !f.send(Followed{Kind: FollowEvent, Run: t.id, Dir: t.dir, Event: &ev}) {
				return false
			}
		}
		t.partial = append([]byte(nil), data...)
	}
	if state != "" {
		t.done, t.partial = true, nil
		return f.send(Followed{Kind: FollowEnd, Run: t.id, Dir: t.dir, State: state})
	}
	return true
}
