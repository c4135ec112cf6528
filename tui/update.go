package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// Update folds a message into the model and, when something changed,
// lays the screen out and draws the frame. It does no I/O: reading and
// writing files happen in the tea.Cmds it returns.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	if m.dirty {
		m.relayout()
	}
	if more := m.wantWindow(); more != nil {
		cmd = tea.Batch(cmd, more)
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		if msg.Width != m.width {
			clear(m.diff.memo) // highlighted diffs are tinted to the width
		}
		m.width, m.height = max(msg.Width, 0), max(msg.Height, 0)
		m.keepColInView()
		m.dirty = true
		return nil

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
			// Live, RunDoneMsg follows once the report is recorded and
			// reloads then; a reload now would read the run's whole event
			// log (no report yet) only to list it as still running.
			if m.tl.lister != nil && ev.Kind == engine.KindRunFinished && !m.opts.Live {
				return m.loadTimeline()
			}
		}
		return nil

	case RunDoneMsg:
		m.engineDone = true
		m.report = msg.Report
		if msg.Report != nil && m.live != nil && m.live.report == nil {
			m.live.setReport(msg.Report)
			m.onFinish(engine.Event{Kind: engine.KindRunFinished})
		}
		m.dirty = true
		if m.quitting || (m.opts.CloseWhenDone && !m.touched) {
			return tea.Quit
		}
		// The question "the run is still going…" has no reason left.
		if m.ask.kind == confirmQuit {
			m.ask = prompt{}
		}
		var reload tea.Cmd
		if m.tl.lister != nil { // the record has its report now
			reload = m.loadTimeline()
		}
		switch {
		case msg.Err != nil:
			m.status = "the run failed: " + msg.Err.Error() + " · q exits"
		case strings.HasPrefix(m.status, "cancelling"):
			m.status = ""
		}
		return reload

	case tickMsg:
		follow := m.onTick(time.Time(msg))
		return tea.Batch(m.tick(), follow)

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
		return nil

	case patchDoneMsg:
		if msg.err != nil {
			m.status = "cannot write the patch of " + msg.hyp + ": " + msg.err.Error()
		} else {
			m.status = "patch saved: " + msg.path + " · the diff of " + msg.hyp + ", for git apply"
		}
		m.dirty = true
		return nil

	case logIndexMsg:
		return m.onLogIndex(msg)

	case logWindowMsg:
		o := &m.out
		if o.idx == nil || msg.path != o.idx.path {
			return nil
		}
		o.loading = -1
		if msg.err != nil {
			o.note = "cannot read the output: " + msg.err.Error()
		} else {
			o.p.win, o.p.winFrom = msg.lines, msg.from
		}
		m.dirty = true
		return nil

	case logSearchMsg:
		o := &m.out
		if o.idx == nil || msg.path != o.idx.path || msg.query != o.p.query {
			return nil
		}
		m.foundAt(&o.p, msg.line, msg.err)
		m.dirty = true
		return nil

	case timelineMsg:
		if msg.err != nil {
			m.status = "cannot list the recorded runs: " + msg.err.Error()
			m.dirty = true
			return nil
		}
		m.setRuns(msg.runs)
		if n := len(msg.runs); m.opts.Watch && n > 0 && m.tl.want == "" && !m.tl.pinned {
			// Nothing newer to follow: show the newest run as recorded
			// (the follower yields only runs not finished when it starts,
			// an interrupted one from long ago among them).
			newest := msg.runs[n-1]
			stale := m.shown == nil || (m.shown == m.live && m.live.done && m.live.id < newest.ID)
			if newest.State != snap.StateRunning && stale {
				m.tl.want = newest.ID
				return loadRunCmd(newest)
			}
		}
		return nil

	case runLoadedMsg:
		if msg.id != m.tl.want {
			return nil // another run was picked, or watch switched since
		}
		m.tl.want = ""
		if msg.err != nil {
			m.status = "cannot read run " + msg.id + ": " + msg.err.Error()
		} else {
			m.show(msg.view)
		}
		m.dirty = true
		return nil

	case followMsg:
		return m.onFollow(msg)

	case reportMsg:
		if rv := m.followed[msg.id]; rv != nil && msg.report != nil && rv.report == nil {
			rv.setReport(msg.report)
			if rv == m.live {
				m.onFinish(engine.Event{Kind: engine.KindRunFinished})
			}
			m.dirty = true
		}
		return nil

	case tea.MouseMsg:
		m.touched = true
		return m.onMouse(msg)

	case tea.KeyMsg:
		m.dirty = true
		m.touched = true
		// Keys that arrive in one read (key repeat over ssh, "jj" typed
		// fast) come as one message of several runes: each is a key.
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste && !m.query.typing {
			var cmds []tea.Cmd
			for _, r := range msg.Runes {
				cmds = append(cmds, m.onKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
			}
			return tea.Batch(cmds...)
		}
		return m.onKey(msg)
	}
	return nil
}

func (m *Model) onTick(t time.Time) tea.Cmd {
	m.frameN++
	if m.pending {
		m.dirty, m.pending = true, false
		return m.followOutput()
	}
	if m.shown != nil && !m.shown.done {
		if _, running := m.shown.counts(); running > 0 && t.Sub(m.lastDraw) >= 100*time.Millisecond {
			m.dirty = true
		}
	}
	return nil
}

// followOutput keeps an output view of a running hypothesis (the lines
// it keeps in memory) up to date as output arrives, following the end
// when the view was at the end; once the hypothesis finished, the view
// moves to its full log.
func (m *Model) followOutput() tea.Cmd {
	o := &m.out
	if !o.open || o.idx != nil || m.shown == nil {
		return nil
	}
	h := m.shown.byName[o.hyp]
	if h == nil {
		return nil
	}
	if h.result != nil && h.result.Log != "" {
		o.note = "reading " + h.result.Log + "…"
		return indexLogCmd(h.name, h.result.Log)
	}
	atEnd := o.p.off >= o.p.maxOff()
	lines := h.out.last(ringCap)
	for i, l := range lines {
		lines[i] = sanitize(l, m.st.color)
	}
	off, match := o.p.off, o.p.match
	o.p.setLines(lines)
	o.p.off, o.p.match = clamp(off, 0, o.p.maxOff()), match
	if atEnd {
		o.p.bottom()
	}
	return nil
}

// onFinish keeps the winner selected when a run ends, unless the user
// picked a hypothesis.
func (m *Model) onFinish(ev engine.Event) {
	m.dirty = true
	if ev.Kind != engine.KindRunFinished || m.shown != m.live || m.sel.moved {
		return
	}
	if w := m.live.winner(); w != "" {
		m.selectName(w)
	}
}

func (m *Model) show(rv *runView) {
	m.shown = rv
	m.sel = selection{}
	if w := rv.winner(); w != "" {
		m.selectName(w)
	}
	m.diff.key = ""
	m.dirty = true
}

func (m *Model) selectName(name string) {
	m.sel.name = name
	m.keepColInView()
}

// colIndex is the selected hypothesis's column (liveOrder), -1 none.
func (m *Model) colIndex() int {
	h := m.selected()
	if h == nil {
		return -1
	}
	for i, x := range m.shown.liveOrder() {
		if x == h {
			return i
		}
	}
	return -1
}

func (m *Model) keepColInView() {
	if m.shown == nil {
		return
	}
	_, n, cw := liveSplit(m.shown, m.width)
	m.sel.colOff = scrollCols(m.sel.colOff, clamp(m.colIndex(), 0, max(n-1, 0)), visibleCols(cw, n), n)
}

// selected is the selected hypothesis: the one named, else the first.
func (m *Model) selected() *hypState {
	if m.shown == nil || len(m.shown.hyps) == 0 {
		return nil
	}
	if h, ok := m.shown.byName[m.sel.name]; ok {
		return h
	}
	if rows := m.order(); len(rows) > 0 { // the first the pane draws
		return rows[0]
	}
	return m.shown.hyps[0]
}

func (m *Model) setRuns(runs []runRow) {
	prevID := ""
	if m.tl.sel < len(m.tl.runs) {
		prevID = m.tl.runs[m.tl.sel].ID
	}
	m.tl.runs = runs
	m.tl.sel = len(runs) - 1
	if m.tl.pinned {
		for i, r := range runs {
			if r.ID == prevID {
				m.tl.sel = i
			}
		}
	}
	m.tl.sel = max(m.tl.sel, 0)
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
			m.dirty = true
			if f.Run < m.newestRun() {
				continue // an older run still going, or long interrupted
			}
			m.live, m.tl.want = rv, ""
			m.show(rv)
			m.status = "following run " + f.Run
			m.tl.pinned = false
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
			if rv == m.live && strings.HasPrefix(m.status, "following run ") {
				m.status = ""
			}
			m.dirty = true
			reload = true
		}
	}
	if reload && m.tl.lister != nil {
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
	if n := len(m.tl.runs); n > 0 && m.tl.runs[n-1].ID > id {
		id = m.tl.runs[n-1].ID
	}
	return id
}

// runActive: the live run of this process has not returned yet.
func (m *Model) runActive() bool {
	return m.opts.Live && !m.engineDone
}

func (m *Model) cancelRun() tea.Cmd {
	m.quitting = true
	m.cancelled = true
	m.status = "cancelling: ending the hypotheses and cleaning up their sandboxes…"
	if m.opts.Cancel != nil {
		m.opts.Cancel()
	}
	if m.engineDone {
		return tea.Quit
	}
	return nil
}

// order is the hypotheses in the order the focused pane shows them, the
// one order ←/→ (and ↑/↓ where they select) move in: the columns of a
// live run left to right (spec order); everything else, results and
// leaderboard, in rank order.
func (m *Model) order() []*hypState {
	if m.shown == nil {
		return nil
	}
	if m.focus == paneColumns && !m.shown.done {
		return m.shown.liveOrder()
	}
	return m.filtered(m.shown.ranked())
}

// filtered is rows whose name holds the leaderboard's filter (all
// without one).
func (m *Model) filtered(rows []*hypState) []*hypState {
	if m.lbFilter == "" {
		return rows
	}
	q := strings.ToLower(m.lbFilter)
	var out []*hypState
	for _, h := range rows {
		if strings.Contains(strings.ToLower(h.name), q) {
			out = append(out, h)
		}
	}
	return out
}

// listFocus: the scrolling keys move the selection in the leaderboard
// (the focused list) rather than scroll the diff or the output.
func (m *Model) listFocus() bool {
	return !m.out.open && m.focus == paneLeaderboard
}

// moveTo selects the hypothesis at index i of the pane's order (clamped).
func (m *Model) moveTo(i int) {
	rows := m.order()
	if len(rows) == 0 {
		return
	}
	m.selectName(rows[clamp(i, 0, len(rows)-1)].name)
	m.dirty = true
}

// moveIndex is the selection's index in the pane's order, -1 none.
func (m *Model) moveIndex() int {
	cur := m.selected()
	for i, h := range m.order() {
		if h == cur {
			return i
		}
	}
	return -1
}

// move selects the hypothesis d places away in the pane's order.
func (m *Model) move(d int) {
	rows := m.order()
	if len(rows) == 0 {
		return
	}
	cur := m.selected()
	for i, r := range rows {
		if r == cur {
			m.selectName(rows[clamp(i+d, 0, len(rows)-1)].name)
			m.sel.moved = true
			return
		}
	}
}

// openRun shows the run selected in the timeline: the live one as it is,
// another read from its record.
func (m *Model) openRun() tea.Cmd {
	if m.tl.sel >= len(m.tl.runs) {
		return nil
	}
	ri := m.tl.runs[m.tl.sel]
	if m.live != nil && ri.ID == m.live.id {
		m.tl.want = ""
		m.show(m.live)
		return nil
	}
	if rv := m.followed[ri.ID]; rv != nil {
		m.tl.want = ""
		m.show(rv)
		return nil
	}
	m.tl.want = ri.ID
	return loadRunCmd(ri)
}

// backToLive leaves a recorded run picked in the timeline for the run
// this screen follows.
func (m *Model) backToLive() bool {
	if m.live == nil || m.shown == m.live {
		return false
	}
	m.tl.want, m.tl.pinned = "", false
	m.show(m.live)
	for i, r := range m.tl.runs {
		if r.ID == m.live.id {
			m.tl.sel = i
		}
	}
	m.status = ""
	return true
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
		m.ask = prompt{kind: confirmApply, hyp: h.name}
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
	m.ask = prompt{kind: confirmApply, hyp: h.name, run: m.shown.id}
	m.status = ""
}

// writePatch writes the selected hypothesis's diff as a patch file.
func (m *Model) writePatch() tea.Cmd {
	h := m.selected()
	if h == nil || h.result == nil {
		m.status = "no diff yet: the hypothesis has not finished"
		return nil
	}
	if h.result.Diff == "" {
		m.status = h.name + " changes nothing: no patch to write"
		return nil
	}
	return writePatchCmd(m.shown.id, h.name, h.result.Diff)
}
