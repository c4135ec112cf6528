package tui

import (
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/shadow-dev/shadow/engine"
)

// Everything that touches the disk runs here, in tea.Cmds, and comes back
// to Update as a message.

type tickMsg time.Time

type applyDoneMsg struct {
	hyp     string
	applied []string
	err     error
}

type logMsg struct {
	hyp  string
	text string
	cut  bool
	err  error
}

type timelineMsg struct {
	runs []RunInfo
	err  error
}

type runLoadedMsg struct {
	id   string
	view *runView
	err  error
}

// watchMsg is one poll of the runs folder: the runs, and either a newer
// run to switch to (replayed up to now) or the events the followed run
// appended since the last poll.
type watchMsg struct {
	runs    []RunInfo
	switch_ *runView
	dir     string
	tail    *tailer
	events  []engine.Event
	err     error
}

// logLimit is how much of a log the output viewport holds (its end).
const logLimit = 4 << 20

// watchEvery is how often watch polls the runs folder.
const watchEvery = 250 * time.Millisecond

func (m *Model) tick() tea.Cmd {
	return tea.Tick(m.opts.Tick, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func applyCmd(workspace string, h engine.Hypothesis, orig map[string]engine.FileState) tea.Cmd {
	return func() tea.Msg {
		applied, err := engine.ApplyHypothesis(workspace, h, orig)
		return applyDoneMsg{hyp: h.Name, applied: applied, err: err}
	}
}

func readLogCmd(hyp, path string) tea.Cmd {
	return func() tea.Msg {
		text, cut, err := readLog(path, logLimit)
		return logMsg{hyp: hyp, text: text, cut: cut, err: err}
	}
}

func (m *Model) loadTimeline() tea.Cmd {
	l := m.lister
	return func() tea.Msg {
		runs, err := l.list()
		return timelineMsg{runs: runs, err: err}
	}
}

func loadRunCmd(ri RunInfo) tea.Cmd {
	return func() tea.Msg {
		rv, _, err := loadRun(ri.Dir)
		return runLoadedMsg{id: ri.ID, view: rv, err: err}
	}
}

// poll lists the runs folder after a delay and reads what the followed
// run appended. Only one poll is in flight at a time, so the tailer is
// never shared.
func (m *Model) poll(after time.Duration) tea.Cmd {
	l, cur, t := m.lister, m.followDir, m.follow
	known := m.live != nil && m.live.report != nil
	work := func() tea.Msg {
		runs, err := l.list()
		if err != nil {
			return watchMsg{err: err}
		}
		msg := watchMsg{runs: runs, dir: cur, tail: t}
		if n := len(runs); n > 0 && runs[n-1].Dir != cur {
			newest := runs[n-1]
			rv, nt, err := loadRun(newest.Dir)
			if err != nil {
				return watchMsg{runs: runs, err: err, dir: cur, tail: t}
			}
			msg.switch_, msg.dir, msg.tail = rv, newest.Dir, nt
			return msg
		}
		if t != nil {
			evs, err := t.read()
			msg.events, msg.err = evs, err
			if err == nil && len(evs) == 0 && cur != "" && !known {
				// The report lands after the last event; pick it up once.
				if rep, rerr := readReport(cur); rerr == nil {
					msg.events = []engine.Event{{Kind: engine.KindRunFinished, Run: filepath.Base(cur), Report: rep}}
				}
			}
		}
		return msg
	}
	if after <= 0 {
		return work
	}
	return tea.Tick(after, func(time.Time) tea.Msg { return work() })
}
