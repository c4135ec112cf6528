package tui

import (
	"fmt"
	"strings"
)

// bodyKind is what the body between the tabs and the status line shows.
type bodyKind int

const (
	bodyNone     bodyKind = iota
	bodyTiny              // the window is too small for anything
	bodyOutput            // a hypothesis's full output
	bodyLive              // columns, the leaderboard, and the diff when tall
	bodyResults           // the run ended: leaderboard and diff own the screen
	bodyBoard             // the leaderboard pane
	bodyDiff              // the diff pane
	bodyTimeline          // the timeline pane
)

// layout is where everything goes on the screen. Update computes it
// (relayout) after every change, so View only draws.
type layout struct {
	w, h    int
	kind    bodyKind
	help    []string
	status  bool // a status or prompt line above the help
	bodyH   int
	colsH   int // live columns; in the results, the columns below the diff
	lbH     int // leaderboard
	detailH int // diff pane, rule excluded; its last row is the ▼ marker when cut
	tlH     int // timeline
	marker  bool
}

// resultsView: the run shown is over, and the first pane shows its answer.
func (m *Model) resultsView() bool {
	return m.focus == paneColumns && m.shown != nil && m.shown.done && len(m.shown.hyps) > 0
}

// relayout recomputes the layout for the window, the focus and what is
// shown, sizes the pagers, fills the diff pane, and draws the frame.
func (m *Model) relayout() {
	w, h := m.width, m.height
	l := layout{w: w, h: h}
	defer func() {
		m.lay = l
		m.frame = m.render()
		m.lastDraw = m.now()
		m.dirty = false
	}()
	if w <= 0 || h <= 0 {
		return
	}
	if w < 20 || h < 6 {
		l.kind = bodyTiny
		return
	}
	m.help.Width = w
	l.help = splitLines(m.help.View(m.keys))
	if len(l.help) > h/3 {
		l.help = l.help[:max(h/3, 1)]
	}
	l.status = m.ask.kind != confirmNone || m.status != "" || m.query.typing
	l.bodyH = h - 2 - len(l.help)
	if l.status {
		l.bodyH--
	}
	bh := l.bodyH
	if bh <= 0 {
		return
	}
	n := 0
	if m.shown != nil {
		n = len(m.shown.hyps)
	}
	if m.out.open {
		l.kind = bodyOutput
		m.out.p.setSize(w, max(bh-1, 1))
		return
	}
	// The diff pane's content is laid out at this width first: its
	// length decides how much room the leaderboard may keep.
	m.fillDetail(w)
	D := m.diff.p.total
	switch {
	case m.resultsView():
		l.kind = bodyResults
		full := n + 1
		compact := min(3, full)
		if sel := m.selected(); sel != nil && m.shown.winner() != "" && sel.name != m.shown.winner() {
			compact = min(4, full)
		}
		if m.shown.winner() == "" {
			// No winner: the ranking is the answer, not one diff; it keeps
			// a third of the screen (it shrank to one row and "+ 6 more").
			compact = min(max(compact, bh/3), full)
		}
		l.lbH = clamp(bh-1-D, compact, full)
		switch {
		case bh-l.lbH-1 < 3: // no room for a diff: the leaderboard alone
			l.lbH = bh
		case bh-l.lbH-1-D >= 12:
			// A tall screen: below the whole diff, each hypothesis's
			// column, for why the others failed.
			l.detailH = D
			l.colsH = bh - l.lbH - 1 - D - 1
		default:
			l.detailH = bh - l.lbH - 1
		}
	case m.focus == paneColumns:
		l.kind = bodyLive
		l.lbH = min(n+1, max(bh/4, 3))
		rest := bh - l.lbH - 1
		switch {
		case rest < 6:
			l.colsH, l.lbH = bh, 0
		case rest >= 26 && m.selected() != nil:
			l.colsH = max(10, rest/2)
			l.detailH = rest - l.colsH - 1
			// The diff pane keeps the rows its content needs (a
			// running hypothesis has no diff yet); the rest go to the
			// leaderboard, up to every row, then to the columns.
			if spare := l.detailH - max(D, 3); spare > 0 {
				l.detailH -= spare
				grow := min(spare, n+1-l.lbH)
				l.lbH += grow
				l.colsH += spare - grow
			}
		default:
			l.colsH = rest
		}
	case m.focus == paneLeaderboard:
		l.kind = bodyBoard
		l.lbH = min(n+1, max(bh/2, 3))
		if bh-l.lbH-1 < 3 {
			l.lbH = bh
		} else {
			l.detailH = bh - l.lbH - 1
		}
	case m.focus == paneDiff:
		l.kind = bodyDiff
		l.detailH = bh - 1
	case m.focus == paneTimeline:
		l.kind = bodyTimeline
		if m.tl.lister == nil {
			break
		}
		l.tlH = clamp(len(m.tl.runs), 1, max(bh/2, 1))
		l.lbH = bh - l.tlH - 1
		if l.lbH < 2 {
			l.tlH, l.lbH = bh, 0
		}
	}
	// Whatever does not fit in the diff pane is said, on its last row.
	ph := l.detailH
	if D > l.detailH && l.detailH >= 2 {
		ph, l.marker = l.detailH-1, true
	}
	m.diff.p.setSize(w, ph)
}

// fillDetail puts the selected hypothesis's diff and failure lines into
// the diff pager, when they changed, and its one-line state into the
// pane's rule. The state is rebuilt every time, from the same hypState
// the columns and the leaderboard draw, so that no header lags behind.
func (m *Model) fillDetail(w int) {
	hs := m.selected()
	if hs == nil {
		m.diff.key, m.diff.summary = "", ""
		m.diff.p.setLines(nil)
		return
	}
	m.diff.summary = m.summary(hs)
	key := fmt.Sprintf("%s/%s/%s/%v/%d", m.shown.id, hs.name, hs.status, hs.result != nil, w)
	if key == m.diff.key {
		return
	}
	keep := strings.HasPrefix(m.diff.key, m.shown.id+"/"+hs.name+"/")
	m.diff.key = key
	q := m.diff.p.query
	off := m.diff.p.off
	m.diff.p.setLines(m.detailLines(hs, w))
	m.diff.p.query = q
	if keep {
		m.diff.p.off = off // the same hypothesis, re-wrapped: stay
	} else {
		m.diff.p.top()
	}
}

// summary is the one-line state of a hypothesis: status and time, counts,
// what it fixes and breaks.
func (m *Model) summary(h *hypState) string {
	st := m.st
	s := statusLine(st, h, m.now(), m.frameN)
	if c := countsLine(st, h); c != "" {
		s += " · " + c
	}
	if r := h.result; r != nil {
		if len(r.Fixed) > 0 {
			s += " · " + st.Passed.UnsetBold().Render("fixes "+shortNames(r.Fixed))
		}
		if len(r.Broken) > 0 {
			s += " · " + st.Failed.UnsetBold().Render("breaks "+shortNames(r.Broken))
		}
	}
	return s
}

// shortNames lists test names with their paths cut to the file name
// ("tests/unit/test_calc.py::test_add" is "test_calc.py::test_add").
func shortNames(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = shortenLine(n)
	}
	return strings.Join(out, ", ")
}
