package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

// This file is the TUI's only reader of the snapshot store's run records:
// RUNS/<run-id>/{meta.json, events.ndjson, report.json}. It is kept apart
// so it can be swapped for the snap package's API.

// RunInfo is one recorded run in the timeline.
type RunInfo struct {
	ID        string
	Dir       string
	StartedAt time.Time
	Command   []string
	Hyps      int
	Finished  bool
	Winner    string
	Cancelled bool
}

type recMeta struct {
	Run       string    `json:"run"`
	Command   []string  `json:"command"`
	StartedAt time.Time `json:"started_at"`
}

// runLister lists a runs directory, remembering what it read of finished
// runs so that polling it often stays cheap.
type runLister struct {
	mu    sync.Mutex
	dir   string
	cache map[string]RunInfo // finished runs only: they no longer change
}

func newRunLister(dir string) *runLister {
	return &runLister{dir: dir, cache: map[string]RunInfo{}}
}

// list returns the runs, oldest first (run ids sort by start time).
func (l *runLister) list() ([]RunInfo, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ents, err := os.ReadDir(l.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []RunInfo
	for _, e := range ents {
		if !e.IsDir() || e.Name()[0] == '.' {
			continue
		}
		if ri, ok := l.cache[e.Name()]; ok {
			out = append(out, ri)
			continue
		}
		ri := readRunInfo(filepath.Join(l.dir, e.Name()))
		if ri.Finished {
			l.cache[ri.ID] = ri
		}
		out = append(out, ri)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func readRunInfo(dir string) RunInfo {
	ri := RunInfo{ID: filepath.Base(dir), Dir: dir}
	var m recMeta
	if b, err := os.ReadFile(filepath.Join(dir, "meta.json")); err == nil && json.Unmarshal(b, &m) == nil {
		ri.StartedAt, ri.Command = m.StartedAt, m.Command
	}
	if rep, err := readReport(dir); err == nil {
		ri.Finished, ri.Hyps, ri.Cancelled = true, len(rep.Hypotheses), rep.Cancelled
		if rep.Winner != nil {
			ri.Winner = *rep.Winner
		}
		if len(ri.Command) == 0 {
			ri.Command = rep.Command
		}
	}
	return ri
}

func readReport(dir string) (*engine.Report, error) {
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return nil, err
	}
	var rep engine.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

// loadRun rebuilds a recorded run: its events replayed (so a run still
// going shows its live state), then its report when it has one. The
// tailer returned continues from where the replay stopped.
func loadRun(dir string) (*runView, *tailer, error) {
	rv := newRunView(filepath.Base(dir))
	t := &tailer{path: filepath.Join(dir, "events.ndjson")}
	evs, err := t.read()
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	for _, ev := range evs {
		rv.apply(ev)
	}
	if rep, err := readReport(dir); err == nil {
		rv.setReport(rep)
	} else if len(evs) == 0 {
		var m recMeta
		if b, err := os.ReadFile(filepath.Join(dir, "meta.json")); err == nil && json.Unmarshal(b, &m) == nil {
			rv.started, rv.command = m.StartedAt, m.Command
		}
	}
	return rv, t, nil
}

// tailer reads the events appended to an events.ndjson since its last
// read. A last line without its newline yet is kept for the next read.
type tailer struct {
	path    string
	off     int64
	partial []byte
}

// maxTailRead bounds one read so a huge log is taken in steps.
const maxTailRead = 8 << 20

func (t *tailer) read() ([]engine.Event, error) {
	f, err := os.Open(t.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < t.off { // truncated or replaced: start over
		t.off, t.partial = 0, nil
	}
	if fi.Size() == t.off {
		return nil, nil
	}
	buf := make([]byte, min(fi.Size()-t.off, maxTailRead))
	n, err := f.ReadAt(buf, t.off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	t.off += int64(n)
	data := append(t.partial, buf[:n]...)
	last := bytes.LastIndexByte(data, '\n')
	if last < 0 {
		t.partial = data
		return nil, nil
	}
	t.partial = append([]byte(nil), data[last+1:]...)
	var evs []engine.Event
	for _, line := range bytes.Split(data[:last], []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev engine.Event
		if json.Unmarshal(line, &ev) == nil {
			evs = append(evs, ev)
		}
	}
	return evs, nil
}

// readLog reads a hypothesis's full output, or its last limit bytes when
// it is larger (the viewport must not hold a gigabyte).
func readLog(path string, limit int64) (string, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false, err
	}
	off, cut := int64(0), false
	if fi.Size() > limit {
		off, cut = fi.Size()-limit, true
	}
	b := make([]byte, fi.Size()-off)
	n, err := f.ReadAt(b, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", false, err
	}
	b = b[:n]
	if cut {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b), cut, nil
}
