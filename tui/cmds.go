package tui

import (
	"os"
	"path/filepath"
	"strings"
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

type patchDoneMsg struct {
	hyp  string
	path string
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

// writePatchCmd writes a hypothesis's diff where `git apply` can take
// it: a file of its own in the temporary directory, named after the run
// and the hypothesis, readable by its owner only (a diff may hold what
// the checkout does not publish). The diff is the report's, the patch
// `shadow show RUN/HYP --patch` prints.
func writePatchCmd(run, hyp, diff string) tea.Cmd {
	return func() tea.Msg {
		name := "shadow-" + safeName(hyp) + ".patch"
		if run != "" {
			name = "shadow-" + safeName(run) + "-" + safeName(hyp) + ".patch"
		}
		path := filepath.Join(os.TempDir(), name)
		f, err := os.CreateTemp(os.TempDir(), name+".*")
		if err == nil {
			_, err = f.WriteString(diff)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				err = os.Rename(f.Name(), path)
			}
			if err != nil {
				os.Remove(f.Name())
			}
		}
		return patchDoneMsg{hyp: hyp, path: path, err: err}
	}
}

// safeName keeps a name to the characters a file name can hold anywhere.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == os.PathSeparator {
			return '_'
		}
		return r
	}, s)
}

func (m *Model) loadTimeline() tea.Cmd {
	l := m.tl.lister
	return func() tea.Msg {
		runs, err := l.list()
		return timelineMsg{runs: runs, err: err}
	}
}

func loadRunCmd(r runRow) tea.Cmd {
	return func() tea.Msg {
		rv, err := loadRun(r)
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
