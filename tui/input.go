package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// onKey answers one key (Update has split a multi-rune message).
func (m *Model) onKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	if m.query.typing {
		return m.onSearchKey(msg)
	}
	// A pending question takes the key first.
	if m.ask.kind != confirmNone {
		yes := key.Matches(msg, k.Yes)
		if msg.String() == "ctrl+c" {
			yes = m.ask.kind == confirmQuit
		}
		a := m.ask
		m.ask = prompt{}
		if !yes {
			m.status = ""
			return nil
		}
		switch a.kind {
		case confirmQuit:
			return m.cancelRun()
		case confirmApply:
			if a.run != "" {
				m.status = "applying " + a.run + "/" + a.hyp + "…"
				return applyRecordCmd(*m.opts.Store, m.opts.Workspace, a.run, a.hyp)
			}
			for _, h := range m.opts.Hyps {
				if h.Name == a.hyp {
					m.status = "applying " + a.hyp + "…"
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
		if m.out.open {
			m.out.open = false
			return nil
		}
		if m.runActive() {
			if m.live.done { // finished, the engine is returning now
				m.quitting = true
				return nil
			}
			m.ask = prompt{kind: confirmQuit}
			m.status = ""
			return nil
		}
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
	case key.Matches(msg, k.Back):
		switch {
		case m.help.ShowAll: // esc closes the ? overlay first, as it opened last
			m.help.ShowAll = false
		case m.out.open:
			m.out.open = false
		case m.lbFilter != "" && m.focus == paneLeaderboard:
			m.lbFilter = ""
			m.status = ""
		case m.diff.p.query != "":
			m.diff.p.query, m.diff.p.match = "", -1
			m.status = ""
		case m.backToLive():
		}
	case key.Matches(msg, k.Tab):
		m.out.open = false
		m.focus = (m.focus + 1) % paneCount
		if m.focus == paneTimeline && m.tl.lister != nil {
			return m.loadTimeline()
		}
	case key.Matches(msg, k.ShiftTab):
		m.out.open = false
		m.focus = (m.focus + paneCount - 1) % paneCount
	case key.Matches(msg, k.Left):
		if !m.out.open {
			m.move(-1)
		}
	case key.Matches(msg, k.Right):
		if !m.out.open {
			m.move(1)
		}
	case key.Matches(msg, k.Up):
		return m.vertical(-1)
	case key.Matches(msg, k.Down):
		return m.vertical(1)
	case key.Matches(msg, k.PageUp) && m.listFocus():
		m.moveTo(m.moveIndex() - max(m.lay.lbH-2, 1))
	case key.Matches(msg, k.PageDown) && m.listFocus():
		m.moveTo(m.moveIndex() + max(m.lay.lbH-2, 1))
	case key.Matches(msg, k.Top) && m.listFocus():
		m.moveTo(0)
	case key.Matches(msg, k.Bottom) && m.listFocus():
		m.moveTo(len(m.order()) - 1)
	case key.Matches(msg, k.PageUp):
		m.pager().page(-1)
	case key.Matches(msg, k.PageDown):
		m.pager().page(1)
	case key.Matches(msg, k.Top):
		m.pager().top()
	case key.Matches(msg, k.Bottom):
		m.pager().bottom()
	case key.Matches(msg, k.Search) && m.listFocus():
		// / on the leaderboard filters it by name, as in lazygit's lists.
		m.query.typing, m.query.input, m.query.filter = true, m.lbFilter, true
	case key.Matches(msg, k.Search):
		if m.out.open || m.lay.detailH > 0 { // something to search on screen
			m.query.typing, m.query.input, m.query.filter = true, "", false
		}
	case key.Matches(msg, k.Next):
		return m.searchAgain(1)
	case key.Matches(msg, k.Prev):
		return m.searchAgain(-1)
	case key.Matches(msg, k.Open):
		if m.focus == paneTimeline && !m.out.open {
			return m.openRun()
		}
		return m.openOutput()
	case key.Matches(msg, k.Apply):
		m.askApply()
	case key.Matches(msg, k.Patch):
		return m.writePatch()
	case key.Matches(msg, k.Mouse):
		m.mouse = !m.mouse
		if m.mouse {
			m.status = "mouse captured: the wheel scrolls · m gives it back to the terminal (and tmux's selection)"
			return tea.EnableMouseCellMotion
		}
		m.status = "mouse released: select text as usual; the wheel scrolls where the terminal sends it as arrows"
		return tea.DisableMouse
	}
	return nil
}

// pager is the view the scrolling keys move: the output when it is open,
// else the diff.
func (m *Model) pager() *pager {
	if m.out.open {
		return &m.out.p
	}
	return &m.diff.p
}

// vertical scrolls the output or the diff where one is the pane's main
// view, and elsewhere moves in the focused list.
func (m *Model) vertical(d int) tea.Cmd {
	switch {
	case m.out.open, m.focus == paneDiff, m.resultsView():
		m.pager().scroll(d)
	case m.focus == paneTimeline:
		if len(m.tl.runs) > 0 {
			m.tl.sel = clamp(m.tl.sel+d, 0, len(m.tl.runs)-1)
			m.tl.pinned = true
			return m.openRun()
		}
	default:
		m.move(d)
	}
	return nil
}

// onMouse scrolls with the wheel (when the mouse is captured).
func (m *Model) onMouse(msg tea.MouseMsg) tea.Cmd {
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		m.pager().scroll(-3)
	case tea.MouseButtonWheelDown:
		m.pager().scroll(3)
	default:
		return nil
	}
	m.dirty = true
	return nil
}

// onSearchKey edits the query typed after /; enter searches.
func (m *Model) onSearchKey(msg tea.KeyMsg) tea.Cmd {
	o := &m.query
	m.dirty = true
	switch msg.Type {
	case tea.KeyEnter:
		o.typing = false
		if o.filter {
			m.setFilter(o.input)
			return nil
		}
		if o.input == "" {
			return m.searchAgain(1) // as in less: / then enter repeats
		}
		p := m.pager()
		p.query, p.match = o.input, -1
		return m.search(p.off, 1)
	case tea.KeyEsc, tea.KeyCtrlC:
		o.typing = false
	case tea.KeyBackspace:
		if r := []rune(o.input); len(r) > 0 {
			o.input = string(r[:len(r)-1])
		}
	case tea.KeyRunes, tea.KeySpace:
		o.input += string(msg.Runes)
	}
	if o.filter && o.typing { // the leaderboard narrows as you type
		m.setFilter(o.input)
	}
	return nil
}

// setFilter filters the leaderboard by name and keeps a matching row
// selected.
func (m *Model) setFilter(q string) {
	m.lbFilter = q
	rows := m.order()
	if len(rows) > 0 && m.moveIndex() < 0 {
		m.selectName(rows[0].name)
	}
	switch {
	case q == "":
		m.status = ""
	case len(rows) == 0:
		m.status = "filter " + q + ": no hypothesis matches · esc clears"
	default:
		m.status = fmt.Sprintf("filter %s: %d match(es) · esc clears", q, len(rows))
	}
}

// searchAgain finds the next (d=1) or previous (d=-1) match.
func (m *Model) searchAgain(d int) tea.Cmd {
	p := m.pager()
	if p.query == "" {
		return nil
	}
	from := p.off
	if p.match >= 0 {
		from = p.match + d
	}
	return m.search(from, d)
}

// search looks for the pager's query from line from: in memory at once,
// in a log on disk through a tea.Cmd.
func (m *Model) search(from, dir int) tea.Cmd {
	p := m.pager()
	if m.out.open && m.out.idx != nil {
		m.out.found = "searching…"
		return searchLogCmd(m.out.idx, p.query, from, dir)
	}
	m.foundAt(p, p.find(p.query, from, dir), nil)
	return nil
}

// foundAt moves the pager to a search's answer, or says there is none.
func (m *Model) foundAt(p *pager, line int, err error) {
	msg := ""
	switch {
	case err != nil:
		msg = "search: " + err.Error()
	case line < 0:
		msg = "no match for " + p.query
	default:
		p.match = line
		if line < p.off || line >= p.off+p.h {
			p.goTo(line)
		}
	}
	if p == &m.out.p {
		m.out.found = msg
	} else if msg != "" {
		m.status = msg
	} else if strings.HasPrefix(m.status, "no match for ") {
		m.status = ""
	}
}

// openOutput opens the selected hypothesis's full output: its log file
// once it finished (indexed, then read a window at a time), else the
// lines kept so far. It opens at the first error section, else the top.
func (m *Model) openOutput() tea.Cmd {
	h := m.selected()
	if h == nil {
		return nil
	}
	q := m.out.p.query
	m.out = outputPane{open: true, hyp: h.name, loading: -1}
	m.out.p.match, m.out.p.query = -1, q
	if h.result != nil && h.result.Log != "" {
		m.out.note = "reading " + h.result.Log + "…"
		return indexLogCmd(h.name, h.result.Log)
	}
	m.memOutput(h)
	return nil
}

// memOutput shows the output lines a hypothesis keeps in memory.
func (m *Model) memOutput(h *hypState) {
	lines := h.out.last(ringCap)
	for i, l := range lines {
		lines[i] = sanitize(l, m.st.color)
	}
	o := &m.out
	o.p.setLines(lines)
	if h.out.total > int64(len(lines)) {
		o.note = "the last lines so far"
	}
	for i, l := range lines {
		if isErrorSection(stripped(l)) {
			o.p.goTo(i)
			break
		}
	}
}

func (m *Model) onLogIndex(msg logIndexMsg) tea.Cmd {
	o := &m.out
	if !o.open || msg.hyp != o.hyp || o.idx != nil {
		return nil
	}
	m.dirty = true
	if msg.err != nil {
		if h := m.selected(); h != nil && h.name == o.hyp {
			m.memOutput(h)
		}
		o.note = "cannot read the log (" + msg.err.Error() + "): the last lines kept"
		return nil
	}
	x := msg.idx
	o.idx = x
	o.p.mem, o.p.win, o.p.winFrom = nil, nil, 0
	o.p.total = x.lines()
	o.p.off = 0
	o.note = ""
	if x.cut {
		o.note = "earlier output cut: the last 64 MiB"
	}
	if x.first >= 0 {
		o.p.h = max(o.p.h, 1)
		o.p.goTo(x.first)
		if o.note == "" {
			o.note = "opened at the first failure · g top"
		}
	}
	return nil
}

// wantWindow reads the window of the log the output view is about to
// show, when it is not at hand yet.
func (m *Model) wantWindow() tea.Cmd {
	o := &m.out
	if !o.open || o.idx == nil || o.loading >= 0 || !o.p.missing() {
		return nil
	}
	from := max(o.p.off-logWindow/4, 0)
	o.loading = from
	return readWindowCmd(o.idx, from, m.st.color)
}
