package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/shadow-dev/shadow/engine"
)

// View returns the frame. Frames are rebuilt only when something changed
// (a key, a resize) or at the redraw tick after events arrived, so a flood
// of output events costs one render per tick, not one per event.
func (m *Model) View() string {
	if m.dirty || m.frame == "" {
		m.frame = m.render()
		m.dirty = false
		m.lastDraw = m.now()
	}
	return m.frame
}

// render draws the whole screen in exactly width×height cells.
func (m *Model) render() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	if w < 20 || h < 6 {
		return fit("shadow: window too small", w, h)
	}
	now := m.now()
	helpView := m.help.View(m.keys)
	helpLines := splitLines(helpView)
	if len(helpLines) > h/3 {
		helpLines = helpLines[:max(h/3, 1)]
	}
	bodyH := h - 3 - len(helpLines)
	parts := []string{
		m.header(w, now),
		m.tabs(w),
		m.body(w, bodyH, now),
		m.statusLine(w),
		strings.Join(helpLines, "\n"),
	}
	return fit(strings.Join(parts, "\n"), w, h)
}

func (m *Model) header(w int, now time.Time) string {
	st := m.st
	left := st.Header.Render("shadow")
	rv := m.shown
	if rv == nil {
		if m.opts.Watch {
			return fit(left+st.Dim.Render(" · watching "+shortPath(m.opts.Workspace)+" · no runs yet"), w, 1)
		}
		return fit(left, w, 1)
	}
	info := []string{}
	if len(rv.command) > 0 {
		info = append(info, strings.Join(rv.command, " "))
	}
	info = append(info, fmt.Sprintf("%d hyp", len(rv.hyps)))
	if rv.mode != "" {
		info = append(info, rv.mode)
	}
	if rv.workspace != "" {
		info = append(info, shortPath(rv.workspace))
	}
	var right string
	fin, running := rv.counts()
	switch {
	case rv.report != nil && rv.winner() != "":
		right = st.Winner.Render("★ winner " + rv.winner())
	case rv.report != nil && rv.report.Cancelled:
		right = st.Warn.Render("cancelled")
	case rv.report != nil:
		right = st.Failed.Render("no winner")
	case rv.interrupted:
		right = st.Warn.Render(fmt.Sprintf("interrupted · %d/%d done", fin, len(rv.hyps)))
	default:
		el := ""
		if !rv.started.IsZero() {
			el = " · " + fmtDur(now.Sub(rv.started))
		}
		spin := spinnerFrames[m.frameN%len(spinnerFrames)]
		if running == 0 {
			spin = "·"
		}
		right = st.Running.Render(fmt.Sprintf("%s %d/%d done", spin, fin, len(rv.hyps))) + st.Dim.Render(el)
	}
	if rv != m.live && rv.id != "" {
		right = st.Dim.Render("run "+rv.id+" · ") + right
	}
	rw := ansi.StringWidth(right)
	lw := max(w-rw-1, 0)
	l := trunc(left+st.Dim.Render(" · "+strings.Join(info, " · ")), lw)
	return pad(l, w-rw) + right
}

func (m *Model) tabs(w int) string {
	st := m.st
	var tabs []string
	for i := range paneCount {
		name := paneNames[i]
		if pane(i) == m.focus && !m.outOpen {
			tabs = append(tabs, st.TabOn.Render("["+name+"]"))
		} else {
			tabs = append(tabs, st.Tab.Render(" "+name+" "))
		}
	}
	left := strings.Join(tabs, "")
	right := ""
	if rv := m.shown; rv != nil && len(rv.hyps) > 0 {
		n := len(rv.hyps)
		vis := visibleCols(w, n)
		off := clamp(m.colOff, 0, max(n-vis, 0))
		if vis < n {
			l, r := " ", " "
			if off > 0 {
				l = "‹"
			}
			if off+vis < n {
				r = "›"
			}
			right = st.Dim.Render(fmt.Sprintf("%s %d–%d of %d %s", l, off+1, off+vis, n, r))
		}
	}
	rw := ansi.StringWidth(right)
	if rw+ansi.StringWidth(left) >= w {
		right, rw = "", 0
	}
	return pad(left, w-rw) + right
}

func (m *Model) statusLine(w int) string {
	st := m.st
	switch m.confirm {
	case confirmQuit:
		return trunc(st.Prompt.Render("The run is still going. Cancel it and quit? [y/N]"), w)
	case confirmApply:
		h := m.selected()
		name := m.confirmHyp
		if m.confirmRun != "" {
			name = m.confirmRun + "/" + m.confirmHyp
		}
		q := fmt.Sprintf("Apply %s to the checkout %s? [y/N]", name, shortPath(m.opts.Workspace))
		switch {
		case h != nil && h.result == nil && m.shown != nil && m.shown.interrupted:
			q = fmt.Sprintf("%s never finished (its run was interrupted). Apply it anyway? [y/N]", name)
		case h != nil && h.result == nil:
			q = fmt.Sprintf("%s has no result. Apply it anyway? [y/N]", name)
		case h != nil && h.result.Status != engine.StatusPassed:
			q = fmt.Sprintf("%s did not pass (%s). Apply it anyway? [y/N]", name, h.result.Status)
		}
		return trunc(st.Prompt.Render(q), w)
	}
	if m.status != "" {
		return trunc(st.Dim.Render(m.status), w)
	}
	return ""
}

// body draws the focused pane and what goes with it in w×h cells.
func (m *Model) body(w, h int, now time.Time) string {
	if h <= 0 {
		return ""
	}
	st := m.st
	if m.outOpen {
		m.outVP.Width, m.outVP.Height = w, max(h-1, 1)
		if m.outBottom {
			m.outVP.GotoBottom()
			m.outBottom = false
		}
		title := st.Bold.Render("output of "+m.outHyp) + st.Dim.Render(" · ↑/↓ pgup/pgdn scroll · esc closes")
		return fit(trunc(title, w)+"\n"+m.outVP.View(), w, h)
	}
	rv := m.shown
	sel := ""
	if s := m.selected(); s != nil {
		sel = s.name
	}
	n := 0
	if rv != nil {
		n = len(rv.hyps)
	}
	switch m.focus {
	case paneColumns:
		lbH := min(n+1, max(h/4, 3))
		rest := h - lbH - 1
		if rest < 6 {
			return renderColumns(st, rv, m.sel, m.colOff, w, h, now, m.frameN)
		}
		if rest >= 26 && m.selected() != nil {
			colsH := max(10, rest/2)
			diffH := rest - colsH - 1
			return fit(strings.Join([]string{
				renderColumns(st, rv, m.sel, m.colOff, w, colsH, now, m.frameN),
				m.rule("leaderboard", w),
				renderLeaderboard(st, rv, sel, w, lbH, now),
				m.rule(m.detailTitle(), w),
				m.detail(w, diffH),
			}, "\n"), w, h)
		}
		return fit(strings.Join([]string{
			renderColumns(st, rv, m.sel, m.colOff, w, rest, now, m.frameN),
			m.rule("leaderboard", w),
			renderLeaderboard(st, rv, sel, w, lbH, now),
		}, "\n"), w, h)
	case paneLeaderboard:
		lbH := min(n+1, max(h/2, 3))
		if h-lbH-1 < 3 {
			return renderLeaderboard(st, rv, sel, w, h, now)
		}
		return fit(strings.Join([]string{
			renderLeaderboard(st, rv, sel, w, lbH, now),
			m.rule(m.detailTitle(), w),
			m.detail(w, h-lbH-1),
		}, "\n"), w, h)
	case paneDiff:
		return fit(m.rule(m.detailTitle(), w)+"\n"+m.detail(w, h-1), w, h)
	case paneTimeline:
		if m.lister == nil {
			return fit(st.Dim.Render("this run is not recorded (--no-record): no timeline"), w, h)
		}
		tlH := clamp(len(m.runs), 1, max(h/2, 1))
		lbH := h - tlH - 1
		if lbH < 2 {
			return renderTimeline(st, m.runs, m.tlSel, m.liveID(), w, h)
		}
		title := "runs of this workspace, newest last · ↑/↓ pick"
		if rv != nil && rv.id != "" {
			title = "run " + rv.id
		}
		return fit(strings.Join([]string{
			renderTimeline(st, m.runs, m.tlSel, m.liveID(), w, tlH),
			m.rule(title, w),
			renderLeaderboard(st, rv, sel, w, lbH, now),
		}, "\n"), w, h)
	}
	return fit("", w, h)
}

func (m *Model) liveID() string {
	if m.live == nil {
		return ""
	}
	return m.live.id
}

// rule is a section divider with a title.
func (m *Model) rule(title string, w int) string {
	title = trunc(title, max(w-4, 0))
	return m.st.Border.Render("── ") + m.st.Bold.Render(title) + m.st.Border.Render(" "+strings.Repeat("─", max(w-4-ansi.StringWidth(title), 0)))
}

func (m *Model) detailTitle() string {
	h := m.selected()
	if h == nil {
		return "diff"
	}
	s := "diff of " + h.name
	if m.shown != nil && m.shown.winner() == h.name {
		s = "diff of the winner, " + h.name
	}
	return s
}

// detail is the selected hypothesis's diff, highlighted, and for one that
// did not pass its failure tail, in a scrollable viewport.
func (m *Model) detail(w, h int) string {
	if h <= 0 {
		return ""
	}
	hs := m.selected()
	m.diffVP.Width, m.diffVP.Height = w, h
	if hs == nil {
		return fit(m.st.Dim.Render("nothing selected"), w, h)
	}
	key := fmt.Sprintf("%s/%s/%s/%v/%d", m.shown.id, hs.name, hs.status, hs.result != nil, w)
	if key != m.diffKey {
		m.diffKey = key
		m.diffVP.SetContent(strings.Join(m.detailLines(hs), "\n"))
		m.diffVP.GotoTop()
	}
	return fit(m.diffVP.View(), w, h)
}

func (m *Model) detailLines(h *hypState) []string {
	st := m.st
	var out []string
	sum := statusLine(st, h, m.now(), m.frameN)
	if c := countsLine(st, h); c != "" {
		sum += "  " + c
	}
	if r := h.result; r != nil {
		if len(r.Fixed) > 0 {
			sum += "  " + st.Passed.UnsetBold().Render("fixes "+strings.Join(r.Fixed, ", "))
		}
		if len(r.Broken) > 0 {
			sum += "  " + st.Failed.UnsetBold().Render("breaks "+strings.Join(r.Broken, ", "))
		}
	}
	out = append(out, sum)
	if h.result != nil && h.result.Error != nil {
		out = append(out, st.Failed.Render("error: ")+sanitize(*h.result.Error, false))
	}
	diff := ""
	if h.result != nil {
		diff = h.result.Diff
	}
	if diff == "" {
		if h.result != nil {
			out = append(out, st.Dim.Render("no changes: this hypothesis is the checkout as it is"))
		} else {
			out = append(out, st.Dim.Render("the diff shows when the hypothesis finishes"))
		}
	} else {
		memo := fmt.Sprintf("%s/%s/%d", m.shown.id, h.name, m.diffVP.Width)
		lines, ok := m.diffMemo[memo]
		if !ok {
			lines = highlightDiff(st, diff, m.diffVP.Width)
			m.diffMemo[memo] = lines
		}
		out = append(out, lines...)
	}
	if h.result != nil && h.status != engine.StatusPassed && h.status != engine.StatusCancelled {
		out = append(out, "", m.st.Bold.Render("── output tail of "+h.name+" ──"))
		tail := strings.TrimRight(h.result.OutputTail, "\n")
		if tail == "" {
			out = append(out, st.Dim.Render("(no output)"))
		}
		for _, l := range strings.Split(tail, "\n") {
			if tail != "" {
				out = append(out, sanitize(l, st.color))
			}
		}
		if h.result.Log != "" {
			out = append(out, st.Dim.Render("full output: enter · "+h.result.Log))
		}
	}
	return out
}
