package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// Everything that touches the disk runs here, in tea.Cmds, and comes back
// to Update as a message.

type tickMsg time.Time

type applyDoneMsg struct {
	hyp     string // the hypothesis, or RUN/HYP of a recorded one
	applied []string
	note    string // set when nothing needed writing
	err     error
}

type logMsg struct {
	hyp  string
	text string
	cut  bool
	err  error
}

type timelineMsg struct {
	runs []runRow
	err  error
}

type runLoadedMsg struct {
	id   string
	view *runView
	err  error
}

// followMsg is what snap.Follow yielded since the last one (at least one
// item, unless the follower closed).
type followMsg struct {
	items  []snap.Followed
	closed bool
}

// reportMsg is the report of a followed run that has just finished.
type reportMsg struct {
	id     string
	report *engine.Report
}

// logLimit is how much of a log the output viewport holds (its end).
const logLimit = 4 << 20

// followBatch bounds how many followed items one message carries.
const followBatch = 512

func (m *Model) tick() tea.Cmd {
	return tea.Tick(m.opts.Tick, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func applyCmd(workspace string, h engine.Hypothesis, orig map[string]engine.FileState) tea.Cmd {
	return func() tea.Msg {
		applied, err := engine.ApplyHypothesis(workspace, h, orig)
		return applyDoneMsg{hyp: h.Name, applied: applied, err: err}
	}
}

// applyRecordCmd applies a recorded hypothesis as `shadow apply RUN/HYP`
// does (snap.Store.ApplyHyp).
func applyRecordCmd(store snap.Store, workspace, run, hyp string) tea.Cmd {
	return func() tea.Msg {
		ref := run + "/" + hyp
		a, err := store.ApplyHyp(workspace, run, hyp)
		msg := applyDoneMsg{hyp: ref, err: err}
		if a != nil {
			msg.applied = a.Files
		}
		switch {
		case err != nil:
		case a.Baseline:
			msg.note = ref + " changes nothing: nothing to apply"
		case a.Already:
			msg.note = ref + " is already in the checkout: nothing to do"
		}
		return msg
	}
}

func readLogCmd(hyp, path string) tea.Cmd {
	return func() tea.Msg {
		text, cut, err := snap.TailFile(path, 0, logLimit)
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

func loadRunCmd(r runRow) tea.Cmd {
	return func() tea.Msg {
		rv, err := loadRun(r.Dir)
		return runLoadedMsg{id: r.ID, view: rv, err: err}
	}
}

// waitFollow waits for what the follower yields next, and takes whatever
// else is already waiting with it. Update re-arms it after each message,
// so only one is in flight.
func waitFollow(ch <-chan snap.Followed) tea.Cmd {
	return func() tea.Msg {
		f, ok := <-ch
		if !ok {
			return followMsg{closed: true}
		}
		msg := followMsg{items: []snap.Followed{f}}
		for len(msg.items) < followBatch {
			select {
			case f, ok := <-ch:
				if !ok {
					msg.closed = true
					return msg
				}
				msg.items = append(msg.items, f)
			default:
				return msg
			}
		}
		return msg
	}
}

func loadReportCmd(id, dir string) tea.Cmd {
	return func() tea.Msg {
		return reportMsg{id: id, report: snap.ReadRun(dir).Report}
	}
}
