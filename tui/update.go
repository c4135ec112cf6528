package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// Update folds a message into the model. It does no I/O: reading and
// writing files happen in the tea.Cmds it returns.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		if msg.Width != m.width {
			clear(m.diffMemo) // highlighted diffs are tinted to the width
		}
		m.width, m.height = max(msg.Width, 0), max(msg.Height, 0)
		m.help.Width = m.width
		if m.shown != nil {
			n := len(m.shown.hyps)
			m.colOff = scrollCols(m.colOff, m.sel, visibleCols(m.width, n), n)
		}
		m.dirty = true
		return m, nil

	case EventMsg:
		ev := engine.Event(msg)
		if m.live == nil {
			m.live = newRunView(ev.Run)
			m.shown = m.live
		}
		m.live.apply(ev)
		m.pending = true
		if ev.Kind == engine.KindRunFinished || ev.Kind == engine.KindHypFinished {
			m.onFinish(ev)
			if m.lister != nil && ev.Kind == engine.KindRunFinished {
				return m, m.loadTimeline()
			}
		}
		return m, nil

	case RunDoneMsg:
		m.engineDone = true
		m.report = msg.Report
		if msg.Report != nil && m.live != nil && m.live.report == nil {
			m.live.setReport(msg.Report)
			m.onFinish(engine.Event{Kind: engine.KindRunFinished})
		}
		m.dirty = true
		if m.quitting {
			return m, tea.Quit
		}
		var reload tea.Cmd
		if m.lister != nil { // the record has its report now
			reload = m.loadTimeline()
		}
		if msg.Err != nil {
			m.status = "the run failed: " + msg.Err.Error() + " · q exits"
		} else if m.status == "" || strings.HasPrefix(m.status, "cancelling") {
			m.status = m.doneStatus()
		}
		return m, reload

	case tickMsg:
		m.onTick(time.Time(msg))
		return m, m.tick()

	case applyDoneMsg:
		switch {
		case msg.err != nil:
			m.status = "apply " + msg.hyp + ": " + msg.err.Error()
		case msg.note != "":
			m.status = msg.note
		default:
			m.status = fmt.Sprintf("applied %s to the checkout: %s", msg.hyp, strings.Join(msg.applied, ", "))
		}
		m.dirty = true
		return m, nil

	case logMsg:
		if msg.hyp == m.outHyp && m.outOpen {
			text := msg.text
			if msg.err != nil {
				text = "cannot read the output: " + msg.err.Error()
			} else if msg.cut {
				text = fmt.Sprintf("[… earlier output cut: showing the last %d MiB]\n", logLimit>>20) + text
			}
			m.setOutput(text)
		}
		return m, nil

	case timelineMsg:
		if msg.err != nil {
			m.status = "cannot list the recorded runs: " + msg.err.Error()
			m.dirty = true
			return m, nil
		}
		m.setRuns(msg.runs)
		if n := len(msg.runs); m.opts.Watch && n > 0 && m.wantRun == "" && !m.tlPinned {
			// Nothing newer to follow: show the newest run as recorded
			// (the follower yields only runs not finished when it starts,
			// an interrupted one from long ago among them).
			newest := msg.runs[n-1]
			stale := m.shown == nil || (m.shown == m.live && m.live.done && m.live.id < newest.ID)
			if newest.State != snap.StateRunning && stale {
				m.wantRun = newest.ID
				return m, loadRunCmd(newest)
			}
		}
		return m, nil

	case runLoadedMsg:
		if msg.id != m.wantRun {
			return m, nil // another run was picked, or watch switched since
		}
		m.wantRun = ""
		if msg.err != nil {
			m.status = "cannot read run " + msg.id + ": " + msg.err.Error()
		} else {
			m.show(msg.view)
		}
		m.dirty = true
		return m, nil

	case followMsg:
		return m, m.onFollow(msg)

	case reportMsg:
		if rv := m.followed[msg.id]; rv != nil && msg.report != nil && rv.report == nil {
			rv.setReport(msg.report)
			if rv == m.live {
				m.onFinish(engine.Event{Kind: engine.KindRunFinished})
			}
			m.dirty = true
		}
		return m, nil

	case tea.KeyMsg:
		m.dirty = true
		return m, m.onKey(msg)
	}
	return m, nil
}

func (m *Model) onTick(t time.Time) {
	m.frameN++
	if m.pending {
		m.dirty, m.pending = true, false
		return
	}
	if m.shown != nil && !m.shown.done {
		if _, running := m.shown.counts(); running > 0 && t.Sub(m.lastDraw) >= 100*time.Millisecond {
			m.dirty = true
		}
	}
}

// onFinish keeps the winner selected when a run ends, unless the user
// picked a hypothesis.
func (m *Model) onFinish(ev engine.Event) {
	m.dirty = true
	if ev.Kind != engine.KindRunFinished || m.shown != m.live || m.userMoved {
		return
	}
	if w := m.live.winner(); w != "" {
		m.selectName(w)
	}
}

func (m *Model) doneStatus() string {
	rv := m.live
	if rv == nil || rv.report == nil {
		return ""
	}
	if w := rv.winner(); w != "" {
		return "run finished: winner " + w + " · a applies it · q exits"
	}
	if rv.report.Cancelled {
		return "run cancelled · q exits"
	}
	return "run finished: no hypothesis passed · q exits"
}

func (m *Model) show(rv *runView) {
	m.shown = rv
	m.sel, m.colOff = 0, 0
	if w := rv.winner(); w != "" {
		m.selectName(w)
	}
	m.diffKey = ""
	m.dirty = true
}

func (m *Model) selectName(name string) {
	if m.shown == nil {
		return
	}
	for i, h := range m.shown.hyps {
		if h.name == name {
			m.sel = i
		}
	}
	m.colOff = scrollCols(m.colOff, m.sel, visibleCols(m.width, len(m.shown.hyps)), len(m.shown.hyps))
}

func (m *Model) selected() *hypState {
	if m.shown == nil || len(m.shown.hyps) == 0 {
		return nil
	}
	return m.shown.hyps[clamp(m.sel, 0, len(m.shown.hyps)-1)]
}

func (m *Model) setRuns(runs []runRow) {
	prevID := ""
	if m.tlSel < len(m.runs) {
		prevID = m.runs[m.tlSel].ID
	}
	m.runs = runs
	m.tlSel = len(runs) - 1
	if m.tlPinned {
		for i, r := range runs {
			if r.ID == prevID {
				m.tlSel = i
			}
		}
	}
	m.tlSel = max(m.tlSel, 0)
	m.dirty = true
}

// onFollow folds in what snap.Follow yielded: a new run becomes the one
// followed and shown, events go to their run's view, and a run's end is
// marked (its report read, or it shows as interrupted). The wait for the
// next items is re-armed.
func (m *Model) onFollow(msg followMsg) tea.Cmd {
	var cmds []tea.Cmd
	reload := false
	for _, f := range msg.items {
		switch f.Kind {
		case snap.FollowRun:
			for id, rv := range m.followed { // keep only runs still going
				if rv.done {
					delete(m.followed, id)
				}
			}
			rv := newRunView(f.Run)
			if f.Meta != nil {
				rv.fromMeta(f.Meta)
			}
			m.followed[f.Run] = rv
			reload = true
			if f.Run < m.newestRun() {
				continue // an older run still going, or long interrupted
			}
			m.live, m.wantRun = rv, ""
			m.userMoved = false
			m.show(rv)
			m.status = "following run " + f.Run
			m.tlPinned = false
		case snap.FollowEvent:
			rv := m.followed[f.Run]
			if rv == nil || f.Event == nil {
				continue
			}
			rv.apply(*f.Event)
			m.pending = true
			if f.Event.Kind == engine.KindRunFinished && rv == m.live {
				m.onFinish(*f.Event)
			}
		case snap.FollowEnd:
			rv := m.followed[f.Run]
			if rv == nil {
				continue
			}
			if f.State == snap.StateInterrupted {
				rv.interrupt()
				if rv == m.live {
					m.status = "run " + f.Run + " was interrupted: its recorder is gone"
				}
			} else if rv.report == nil {
				cmds = append(cmds, loadReportCmd(f.Run, f.Dir))
			}
			m.dirty = true
			reload = true
		}
	}
	if reload && m.lister != nil {
		cmds = append(cmds, m.loadTimeline())
	}
	if !msg.closed {
		cmds = append(cmds, waitFollow(m.followCh))
	}
	return tea.Batch(cmds...)
}

// newestRun is the newest run id watch knows of: followed or listed.
func (m *Model) newestRun() string {
	id := ""
	if m.live != nil {
		id = m.live.id
	}
	if n := len(m.runs); n > 0 && m.runs[n-1].ID > id {
		id = m.runs[n-1].ID
	}
	return id
}

func (m *Model) onKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	// A pending question takes the key first.
	if m.confirm != confirmNone {
		yes := key.Matches(msg, k.Yes)
		if msg.String() == "ctrl+c" {
			yes = m.confirm == confirmQuit
		}
		kind, hyp, run := m.confirm, m.confirmHyp, m.confirmRun
		m.confirm, m.confirmHyp, m.confirmRun = confirmNone, "", ""
		if !yes {
			m.status = ""
			return nil
		}
		switch kind {
		case confirmQuit:
			return m.cancelRun()
		case confirmApply:
			if run != "" {
				m.status = "applying " + run + "/" + hyp + "…"
				return applyRecordCmd(*m.opts.Store, m.opts.Workspace, run, hyp)
			}
			for _, h := range m.opts.Hyps {
				if h.Name == hyp {
					m.status = "applying " + hyp + "…"
					return applyCmd(m.opts.Workspace, h, m.opts.Originals)
				}
			}
		}
		return nil
	}
	switch {
	case msg.String() == "ctrl+c":
		if m.runActive() {
			return m.cancelRun()
		}
		return tea.Quit
	case key.Matches(msg, k.Quit):
		if m.outOpen {
			m.outOpen = false
			return nil
		}
		if m.runActive() {
			if m.live.done { // finished, the engine is returning now
				m.quitting = true
				return nil
			}
			m.confirm = confirmQuit
			m.status = ""
			return nil
		}
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
	case key.Matches(msg, k.Back):
		m.outOpen = false
	case key.Matches(msg, k.Tab):
		m.outOpen = false
		m.focus = (m.focus + 1) % paneCount
		if m.focus == paneTimeline && m.lister != nil {
			return m.loadTimeline()
		}
	case key.Matches(msg, k.ShiftTab):
		m.outOpen = false
		m.focus = (m.focus + paneCount - 1) % paneCount
	case key.Matches(msg, k.Left):
		m.move(-1)
	case key.Matches(msg, k.Right):
		m.move(1)
	case key.Matches(msg, k.Up):
		return m.vertical(-1)
	case key.Matches(msg, k.Down):
		return m.vertical(1)
	case key.Matches(msg, k.PageUp):
		m.scroll(-1, true)
	case key.Matches(msg, k.PageDown):
		m.scroll(1, true)
	case key.Matches(msg, k.Open):
		if m.focus == paneTimeline && !m.outOpen {
			return m.openRun()
		}
		return m.openOutput()
	case key.Matches(msg, k.Apply):
		m.askApply()
	}
	return nil
}

// runActive: the live run of this process has not returned yet.
func (m *Model) runActive() bool {
	return m.opts.Live && !m.engineDone
}

func (m *Model) cancelRun() tea.Cmd {
	m.quitting = true
	m.status = "cancelling: ending the hypotheses and cleaning up their sandboxes…"
	if m.opts.Cancel != nil {
		m.opts.Cancel()
	}
	if m.engineDone {
		return tea.Quit
	}
	return nil
}

func (m *Model) move(d int) {
	if m.outOpen {
		return
	}
	if m.shown == nil || len(m.shown.hyps) == 0 {
		return
	}
	m.userMoved = true
	m.sel = clamp(m.sel+d, 0, len(m.shown.hyps)-1)
	m.colOff = scrollCols(m.colOff, m.sel, visibleCols(m.width, len(m.shown.hyps)), len(m.shown.hyps))
}

// vertical moves in the focused list, or scrolls the focused viewport.
func (m *Model) vertical(d int) tea.Cmd {
	switch {
	case m.outOpen, m.focus == paneDiff:
		m.scroll(d, false)
	case m.focus == paneTimeline:
		if len(m.runs) > 0 {
			m.tlSel = clamp(m.tlSel+d, 0, len(m.runs)-1)
			m.tlPinned = true
			return m.openRun()
		}
	default:
		// Columns and leaderboard: move in rank order.
		if m.shown == nil {
			return nil
		}
		rows := m.shown.ranked()
		cur := m.selected()
		for i, r := range rows {
			if r == cur {
				j := clamp(i+d, 0, len(rows)-1)
				m.selectName(rows[j].name)
				m.userMoved = true
				break
			}
		}
	}
	return nil
}

func (m *Model) scroll(d int, page bool) {
	vp := &m.diffVP
	if m.outOpen {
		vp = &m.outVP
	}
	switch {
	case page && d < 0:
		vp.PageUp()
	case page:
		vp.PageDown()
	case d < 0:
		vp.ScrollUp(1)
	default:
		vp.ScrollDown(1)
	}
}

// openRun shows the run selected in the timeline: the live one as it is,
// another read from its record.
func (m *Model) openRun() tea.Cmd {
	if m.tlSel >= len(m.runs) {
		return nil
	}
	ri := m.runs[m.tlSel]
	if m.live != nil && ri.ID == m.live.id {
		m.wantRun = ""
		m.show(m.live)
		return nil
	}
	if rv := m.followed[ri.ID]; rv != nil {
		m.wantRun = ""
		m.show(rv)
		return nil
	}
	m.wantRun = ri.ID
	return loadRunCmd(ri)
}

// openOutput opens the selected hypothesis's full output: its log file
// once it finished, else the lines kept so far.
func (m *Model) openOutput() tea.Cmd {
	h := m.selected()
	if h == nil {
		return nil
	}
	m.outOpen, m.outHyp = true, h.name
	m.outVP.SetYOffset(0)
	if h.result != nil && h.result.Log != "" {
		m.setOutput("reading " + h.result.Log + "…")
		return readLogCmd(h.name, h.result.Log)
	}
	m.setOutput(strings.Join(h.out.last(ringCap), "\n"))
	return nil
}

func (m *Model) setOutput(text string) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = sanitize(l, m.st.color)
	}
	m.outVP.SetContent(strings.Join(lines, "\n"))
	m.outBottom = true // once the viewport has its size, in render
	m.dirty = true
}

// askApply asks before applying the selected hypothesis: of the live
// run, from the hypotheses this process holds; of a recorded run (picked
// in the timeline, or the run watch follows), from its record, as
// `shadow apply RUN/HYP` does.
func (m *Model) askApply() {
	h := m.selected()
	if h == nil {
		return
	}
	if m.opts.Live && m.shown == m.live {
		if h.result == nil {
			m.status = h.name + " has not finished yet"
			return
		}
		m.confirm, m.confirmHyp, m.confirmRun = confirmApply, h.name, ""
		m.status = ""
		return
	}
	if m.opts.Store == nil || m.shown.id == "" {
		m.status = "this run is not recorded: nothing to apply"
		return
	}
	if h.result == nil && !m.shown.done {
		m.status = h.name + " has not finished yet"
		return
	}
	m.confirm, m.confirmHyp, m.confirmRun = confirmApply, h.name, m.shown.id
	m.status = ""
}
