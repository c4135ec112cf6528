package tui

import (
	"os"
	"sync"
	"time"

	"github.com/shadow-dev/shadow/internal/records"
	"github.com/shadow-dev/shadow/snap"
)

// The TUI reads the snapshot store only through the snap package: the
// timeline through Store.RunIDs and ReadRun, a picked run through ReadRun
// and ReadEvents, watch through snap.Follow, output logs through
// snap.TailFile, and `a` on a recorded run through Store.ApplyHyp. All of
// it runs in tea.Cmds (cmds.go).

// runRow is one recorded run in the timeline: the little of a
// snap.RunInfo the timeline shows (a report, with its diffs and output
// tails, is not kept for every run).
type runRow struct {
	ID        string
	Dir       string
	StartedAt time.Time
	Command   []string
	Hyps      int
	State     string // snap.StateRunning, StateFinished or StateInterrupted
	Winner    string
	Cancelled bool
	Stopped   bool // it could not run every hypothesis (Report.Error)
	// store and ws are where the run is recorded, so a picked run's
	// hypotheses are read from the verified records (records.ShowHyp).
	store snap.Store
	ws    string
}

func rowOf(ri *snap.RunInfo) runRow {
	r := runRow{ID: ri.ID, Dir: ri.Dir, StartedAt: ri.StartedAt(), Hyps: len(ri.Hyps), State: ri.State}
	if ri.Meta != nil {
		r.Command = ri.Meta.Command
	}
	if rep := ri.Report; rep != nil {
		if len(r.Command) == 0 {
			r.Command = rep.Command
		}
		if rep.Winner != nil {
			r.Winner = *rep.Winner
		}
		r.Cancelled, r.Stopped = rep.Cancelled, rep.Error != ""
		if r.Hyps == 0 {
			r.Hyps = len(rep.Hypotheses)
		}
	}
	return r
}

// runLister lists a workspace's recorded runs, remembering the rows of
// runs that can no longer change (finished or interrupted), so that
// listing often stays cheap.
type runLister struct {
	mu    sync.Mutex
	store snap.Store
	ws    string
	cache map[string]runRow
}

func newRunLister(store snap.Store, ws string) *runLister {
	return &runLister{store: store, ws: ws, cache: map[string]runRow{}}
}

// list returns the runs, oldest first.
func (l *runLister) list() ([]runRow, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids, err := l.store.RunIDs(l.ws)
	if err != nil {
		return nil, err
	}
	out := make([]runRow, 0, len(ids))
	for _, id := range ids {
		r, ok := l.cache[id]
		if !ok {
			r = rowOf(snap.ReadRun(l.store.RunDir(l.ws, id)))
			if r.State != snap.StateRunning {
				l.cache[id] = r
			}
		}
		r.store, r.ws = l.store, l.ws
		out = append(out, r)
	}
	return out, nil
}

// loadRun rebuilds a recorded run: its events replayed (so a run still
// going shows its state so far), then its report when it has one, each
// hypothesis's diff from the verified records (records.ShowHyp: what
// apply would write, not the report's capped one) and the integrity
// warning of a report changed after the run sealed it.
func loadRun(row runRow) (*runView, error) {
	dir := row.Dir
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	ri := snap.ReadRun(dir)
	rv := newRunView(ri.ID)
	evs, _ := snap.ReadEvents(snap.EventsPath(dir))
	for _, ev := range evs {
		rv.apply(ev)
	}
	if ri.Meta != nil {
		rv.fromMeta(ri.Meta)
	}
	if ri.Report != nil {
		if row.ws != "" {
			rv.warning = verifyDiffs(row.store, row.ws, ri)
		}
		rv.setReport(ri.Report)
	}
	if ri.State == snap.StateInterrupted {
		rv.interrupt()
	}
	return rv, nil
}

// verifyDiffs puts each finished hypothesis's diff from the verified
// records (records.ShowHyp) in place of the report's, and returns the
// warning to show: the report's integrity warning, and the hypotheses
// whose records are refused (their diff is left out).
func verifyDiffs(store snap.Store, ws string, ri *snap.RunInfo) string {
	warning := ri.Unverified
	for _, r := range ri.Results {
		h, err := records.ShowHyp(store, ws, ri, r.Name)
		if err != nil {
			r.Diff = ""
			if warning != "" {
				warning += "; "
			}
			warning += err.Error()
			continue
		}
		r.Diff = h.Diff
	}
	return warning
}
