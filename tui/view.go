package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/shadow-dev/shadow/snap"
)

// View returns the frame relayout drew. It only reads: frames are drawn
// in Update when something changed (a key, a resize) or at the redraw
// tick after events arrived, so a flood of output events costs one frame
// per tick, not one per event.
func (m *Model) View() string {
	if m.frame == "" && m.dirty {
		return m.render()
	}
	return m.frame
}

// render draws the whole screen in exactly width×height cells, as the
// layout says.
func (m *Model) render() string {
	l := m.lay
	w, h := l.w, l.h
	if w <= 0 || h <= 0 {
		return ""
	}
	if l.kind == bodyTiny {
		return fit("shadow: window too small", w, h)
	}
	now := m.now()
	parts := []string{m.header(w, now), m.tabs(w), m.body(l, now)}
	if l.status {
		parts = append(parts, m.statusLine(w))
	}
	parts = append(parts, strings.Join(l.help, "\n"))
	frame := fit(strings.Join(parts, "\n"), w, h)
	if m.opts.ASCII {
		frame = asciiFold(frame)
	}
	return frame
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
		right = st.Winner.Render(st.g.Winner + " winner " + rv.winner())
		if rv.report.Cancelled {
			right = st.Warn.Render("cancelled · ") + right
		}
	case rv.report != nil && rv.report.Cancelled:
		right = st.Warn.Render("cancelled")
	case rv.report != nil && rv.report.Error != "":
		// It could not run every hypothesis (every remote node failed);
		// the reason is in the report's text and shadow show.
		right = st.Failed.Render("stopped · no winner")
	case rv.report != nil:
		right = st.Failed.Render("no winner")
	case rv.interrupted:
		right = st.Warn.Render(fmt.Sprintf("interrupted · %d/%d done", fin, len(rv.hyps)))
	default:
		el := ""
		if !rv.started.IsZero() {
			el = " · " + fmtDur(now.Sub(rv.started))
		}
		spin := st.g.Spinner[m.frameN%len(st.g.Spinner)]
		if running == 0 {
			spin = st.g.Queued
		}
		right = st.Running.Render(fmt.Sprintf("%s %d/%d done", spin, fin, len(rv.hyps))) + st.Dim.Render(el)
	}
	if rv != m.live && rv.id != "" {
		right = st.Dim.Render("run "+rv.id+" · ") + right
	}
	if other := m.otherRunGoing(); other != "" {
		right = st.Running.Render(other+" · ") + right
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
		if pane(i) == paneColumns && m.shown != nil && m.shown.done {
			name = "results"
		}
		if pane(i) == m.focus && !m.out.open {
			tabs = append(tabs, st.TabOn.Render("["+name+"]"))
		} else {
			tabs = append(tabs, st.Tab.Render(" "+name+" "))
		}
	}
	left := strings.Join(tabs, "")
	right := ""
	if rv := m.shown; rv != nil && len(rv.hyps) > 0 && m.lay.kind == bodyLive {
		_, n, cw := liveSplit(rv, w)
		vis := visibleCols(cw, n)
		off := clamp(m.sel.colOff, 0, max(n-vis, 0))
		if vis < n {
			l, r := " ", " "
			if off > 0 {
				l = st.g.Left
			}
			if off+vis < n {
				r = st.g.Right
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
	if m.query.typing {
		return trunc(st.Prompt.Render("/")+m.query.input+"█", w)
	}
	switch m.ask.kind {
	case confirmQuit:
		return trunc(st.Prompt.Render("The run is still going. Cancel it and quit? [y/N]"), w)
	case confirmApply:
		h := m.selected()
		name := m.ask.hyp
		if m.ask.run != "" {
			name = m.ask.run + "/" + m.ask.hyp
		}
		q := fmt.Sprintf("Apply %s to the checkout %s? [y/N]", name, shortPath(m.opts.Workspace))
		switch {
		case h != nil && h.result == nil && m.shown != nil && m.shown.interrupted:
			q = fmt.Sprintf("%s never finished (its run was interrupted). Apply it anyway? [y/N]", name)
		case h != nil && h.result == nil:
			q = fmt.Sprintf("%s has no result. Apply it anyway? [y/N]", name)
		case h != nil && snap.ApplyRefusal(h.result) != "":
			// What `shadow apply` refuses without --force (snap.ApplyRefusal).
			q = fmt.Sprintf("%s %s. Apply it anyway? [y/N]", name, snap.ApplyRefusal(h.result))
		}
		return trunc(st.Prompt.Render(q), w)
	}
	if m.status != "" {
		return trunc(st.Dim.Render(m.status), w)
	}
	if m.opts.CloseWhenDone && !m.touched && m.runActive() {
		return trunc(st.Dim.Render("closes when the run ends · any key keeps it open"), w)
	}
	return ""
}

// body draws what the layout put between the tabs and the status line.
func (m *Model) body(l layout, now time.Time) string {
	w, h := l.w, l.bodyH
	if h <= 0 {
		return ""
	}
	st := m.st
	rv := m.shown
	sel := ""
	if s := m.selected(); s != nil {
		sel = s.name
	}
	lb := func() string {
		if rv == nil || len(rv.hyps) == 0 {
			return renderLeaderboard(st, rv, sel, w, l.lbH, now)
		}
		return renderLeaderboardOf(st, rv, m.filtered(rv.ranked()), sel, w, l.lbH, now)
	}
	var parts []string
	switch l.kind {
	case bodyOutput:
		return fit(m.outputTitle(w)+"\n"+strings.Join(m.out.p.view(st), "\n"), w, h)
	case bodyLive:
		cols := renderColumns(st, rv, m.colIndex(), m.sel.colOff, w, l.colsH, now, m.frameN)
		parts = append(parts, cols)
		if l.lbH > 0 {
			parts = append(parts, m.rule("leaderboard", "", w), lb())
		}
		if l.detailH > 0 {
			parts = append(parts, m.detailRule(w), m.detail(l))
		}
	case bodyResults, bodyBoard:
		parts = append(parts, lb())
		if l.detailH > 0 {
			parts = append(parts, m.detailRule(w), m.detail(l))
		}
		if l.kind == bodyResults && l.colsH > 0 {
			// In rank order, as the leaderboard and ←/→ go.
			rows := rv.ranked()
			at := 0
			for i, r := range rows {
				if r.name == sel {
					at = i
				}
			}
			off := scrollCols(0, at, visibleCols(w, len(rows)), len(rows))
			parts = append(parts, m.rule("every hypothesis, in rank order", "", w),
				renderColumnsOf(st, rv, rows, at, off, w, l.colsH, now, m.frameN))
		}
	case bodyDiff:
		parts = append(parts, m.detailRule(w), m.detail(l))
	case bodyTimeline:
		if m.tl.lister == nil {
			return fit(st.Dim.Render("this run is not recorded (--no-record): no timeline"), w, h)
		}
		parts = append(parts, renderTimeline(st, m.tl.runs, m.tl.sel, m.liveID(), w, l.tlH))
		if l.lbH > 0 {
			title := "runs of this workspace, newest last · ↑/↓ pick"
			if rv != nil && rv.id != "" {
				title = "run " + rv.id
				if rv != m.live && m.live != nil {
					title += " · esc back to the live run"
				}
			}
			parts = append(parts, m.rule(title, "", w), lb())
		}
	}
	return fit(strings.Join(parts, "\n"), w, h)
}

// detail draws the diff pane's rows: the pager's window and, when the
// content is cut, a last row that says how much more there is.
func (m *Model) detail(l layout) string {
	if l.detailH <= 0 {
		return ""
	}
	if m.selected() == nil {
		return fit(m.st.Dim.Render("nothing selected"), l.w, l.detailH)
	}
	p := &m.diff.p
	rows := fit(strings.Join(p.view(m.st), "\n"), l.w, p.h)
	if !l.marker {
		return rows
	}
	g := m.st.g
	var mk string
	switch {
	case p.below() > 0:
		mk = fmt.Sprintf("%s %d more lines · ↓/pgdn scrolls", g.Below, p.below())
	default:
		mk = fmt.Sprintf("%s %d lines above · g goes to the top", g.Above, p.off)
	}
	return rows + "\n" + trunc(m.st.Marker.Render(mk), l.w)
}

// detailRule is the diff pane's divider: whose diff, its state, and
// where in it the window is.
func (m *Model) detailRule(w int) string {
	h := m.selected()
	if h == nil {
		return m.rule("diff", "", w)
	}
	name := h.name
	if m.shown != nil && m.shown.winner() == h.name {
		name = m.st.g.Winner + " " + name
	}
	right := ""
	if p := &m.diff.p; p.total > p.h && p.h > 0 {
		right = p.position()
	}
	return m.rule(name+" · "+m.diff.summary, right, w)
}

// outputTitle is the full-output view's first row: whose output, where
// in it, the search and the keys.
func (m *Model) outputTitle(w int) string {
	st := m.st
	o := &m.out
	left := st.Bold.Render("output of " + o.hyp)
	if o.note != "" {
		left += st.Dim.Render(" · " + o.note)
	}
	right := o.p.position()
	switch {
	case o.found != "":
		right = st.Warn.Render(o.found) + st.Dim.Render(" · ") + right
	case o.p.query != "" && o.p.match >= 0:
		right = st.Dim.Render("/"+o.p.query+" · n/N · ") + right
	}
	right = st.Dim.Render(right) + st.Dim.Render(" · esc closes")
	rw := lipglossWidth(right)
	return pad(trunc(left, max(w-rw-1, 0)), max(w-rw, 0)) + right
}

// otherRunGoing, for watch: a run it switched away from (or never
// showed) that is still going, said in the header so it is not missed.
func (m *Model) otherRunGoing() string {
	if !m.opts.Watch {
		return ""
	}
	n := 0
	id := ""
	for rid, rv := range m.followed {
		if rv != m.shown && !rv.done {
			n++
			id = rid
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return "run " + id + " still going"
	}
	return fmt.Sprintf("%d other runs still going", n)
}

func (m *Model) liveID() string {
	if m.live == nil {
		return ""
	}
	return m.live.id
}

// rule is a section divider with a title and, at its right end, a note.
func (m *Model) rule(title, right string, w int) string {
	g := m.st.g.Rule
	rw := 0
	if right != "" {
		right = " " + right + " " + g + g
		rw = lipglossWidth(right)
	}
	title = trunc(title, max(w-4-rw, 0))
	fill := max(w-4-lipglossWidth(title)-rw, 0)
	return m.st.Border.Render(g+g+" ") + m.st.Bold.Render(title) + m.st.Border.Render(" "+strings.Repeat(g, fill)) + m.st.Dim.Render(right)
}
