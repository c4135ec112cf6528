package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/shadow-dev/shadow/engine"
)

// minColWidth is the narrowest a hypothesis column gets; when they do not
// all fit the row scrolls sideways.
const minColWidth = 28

// visibleCols is how many columns fit in w cells, given n hypotheses.
func visibleCols(w, n int) int {
	return clamp(w/minColWidth, 1, max(n, 1))
}

// scrollCols keeps the selected column in view: it returns the new index
// of the first visible column.
func scrollCols(off, sel, visible, n int) int {
	if sel < off {
		off = sel
	}
	if sel >= off+visible {
		off = sel - visible + 1
	}
	return clamp(off, 0, max(n-visible, 0))
}

// colView is what one column draws.
type colView struct {
	st       Styles
	h        *hypState
	selected bool
	winner   bool
	now      time.Time
	frame    int
	color    bool
}

// queueColWidth is the width of the one column listing a live run's
// queued hypotheses: a queued column has nothing to show but its name.
const queueColWidth = 24

// liveSplit is the live columns' hypotheses in liveOrder (running,
// finished, queued) and how many of them get a column of their own; the
// rest, queued, share one list column. Each gets its own when fewer than
// two are queued, when none has started, or when w leaves no room beside
// the list for one column.
func liveSplit(rv *runView, w int) (hyps []*hypState, own, colsW int) {
	hyps = rv.liveOrder()
	own = len(hyps)
	for i, h := range hyps {
		if h.result == nil && h.status != engine.StatusRunning {
			own = i
			break
		}
	}
	if len(hyps)-own < 2 || own == 0 || w-queueColWidth < minColWidth {
		return hyps, len(hyps), w
	}
	return hyps, own, w - queueColWidth
}

// renderColumns draws the visible hypotheses side by side in w×h cells,
// the queued ones listed in one column at the right (liveSplit).
func renderColumns(st Styles, rv *runView, sel, off, w, h int, now time.Time, frame int) string {
	if rv == nil || len(rv.hyps) == 0 {
		return fit(st.Dim.Render("waiting for the run to start…"), w, h)
	}
	hyps, own, cw := liveSplit(rv, w)
	if own == len(hyps) {
		return renderColumnsOf(st, rv, hyps, sel, off, w, h, now, frame)
	}
	colSel := sel
	if sel >= own {
		colSel = -1
	}
	left := renderColumnsOf(st, rv, hyps[:own], colSel, off, cw, h, now, frame)
	return lipgloss.JoinHorizontal(lipgloss.Top, left, renderQueue(st, hyps[own:], sel-own, w-cw, h))
}

// renderQueue is the list column of the queued hypotheses, sel (an index
// of queued, or out of range for none) reversed, in w×h cells.
func renderQueue(st Styles, queued []*hypState, sel, w, h int) string {
	if h < 3 {
		return fit("", w, h)
	}
	b, bs := st.g.Border, st.Border
	iw := w - 4
	title := trunc(fmt.Sprintf("%s %d queued", st.g.Queued, len(queued)), max(w-5, 1))
	out := []string{bs.Render(b.TopLeft+b.Top) + st.Dim.Render(title) + bs.Render(strings.Repeat(b.Top, max(w-3-lipglossWidth(title), 0))+b.TopRight)}
	room := h - 2
	for i, q := range queued {
		if len(out)-1 == room-1 && i < len(queued)-1 {
			out = append(out, bs.Render(b.Left)+" "+pad(st.Dim.Render(fmt.Sprintf("+ %d more", len(queued)-i)), iw)+" "+bs.Render(b.Right))
			break
		}
		name := trunc(q.name, iw)
		if i == sel {
			name = st.Selected.Render(name)
		}
		out = append(out, bs.Render(b.Left)+" "+pad(name, iw)+" "+bs.Render(b.Right))
	}
	for len(out) < h-1 {
		out = append(out, bs.Render(b.Left)+" "+pad("", iw)+" "+bs.Render(b.Right))
	}
	out = append(out, bs.Render(b.BottomLeft+strings.Repeat(b.Bottom, w-2)+b.BottomRight))
	return strings.Join(out, "\n")
}

// renderColumnsOf draws hyps (in that order) side by side; sel and off
// index hyps.
func renderColumnsOf(st Styles, rv *runView, hyps []*hypState, sel, off, w, h int, now time.Time, frame int) string {
	n := len(hyps)
	if n == 0 || h <= 0 {
		return fit("", w, h)
	}
	vis := visibleCols(w, n)
	off = clamp(off, 0, max(n-vis, 0))
	end := min(off+vis, n)
	vis = end - off
	base, extra := w/vis, w%vis
	var blocks []string
	for i := off; i < end; i++ {
		cw := base
		if i-off < extra {
			cw++
		}
		c := colView{st: st, h: hyps[i], selected: i == sel, winner: rv.winner() == hyps[i].name,
			now: now, frame: frame, color: st.color}
		blocks = append(blocks, c.render(cw, h))
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, blocks...)
}

// statusLine is the icon, status and time of a hypothesis.
func statusLine(st Styles, h *hypState, now time.Time, frame int) string {
	var icon, word string
	var dur time.Duration
	g := st.g
	switch h.status {
	case engine.StatusQueued:
		icon, word = g.Queued, "queued"
	case engine.StatusRunning:
		icon, word = g.Spinner[frame%len(g.Spinner)], "running"
		if !h.started.IsZero() && now.After(h.started) {
			dur = now.Sub(h.started)
		}
	case engine.StatusPassed:
		icon, word = g.Passed, "passed"
	case engine.StatusFailed:
		icon, word = g.Failed, "failed"
		if h.result != nil && h.result.ExitCode != nil {
			word = fmt.Sprintf("failed (exit %d)", *h.result.ExitCode)
		}
	case engine.StatusTimedOut:
		icon, word = g.TimedOut, "timed out"
	case engine.StatusError:
		icon, word = g.Error, "error"
	case engine.StatusCancelled:
		icon, word = g.Cancelled, "cancelled"
	default:
		icon, word = "?", h.status
	}
	if h.result != nil && h.status != engine.StatusRunning && h.status != engine.StatusQueued {
		dur = time.Duration(h.result.DurationMS) * time.Millisecond
	}
	s := st.status(h.status).Render(icon + " " + word)
	if dur > 0 || h.status == engine.StatusRunning {
		s += " " + st.Dim.Render(fmtDur(dur))
	}
	return s
}

// countsLine is the live or final test counts.
func countsLine(st Styles, h *hypState) string {
	if h.tests == nil {
		if h.status == engine.StatusQueued {
			return ""
		}
		if h.result != nil {
			return st.Dim.Render("no test counts")
		}
		return st.Dim.Render("no counts yet")
	}
	t := h.tests
	unit := ""
	if t.Unit == "package" { // plain go test: package lines only
		unit = " pkg"
	}
	s := st.Passed.UnsetBold().Render(fmt.Sprintf("%d%s passed", t.Passed, unit))
	if t.Failed > 0 {
		s += " " + st.Failed.UnsetBold().Render(fmt.Sprintf("%d failed", t.Failed))
	} else {
		s += " " + st.Dim.Render("0 failed")
	}
	if t.Skipped > 0 {
		s += " " + st.Dim.Render(fmt.Sprintf("%d skipped", t.Skipped))
	}
	if h.result != nil {
		s += " " + st.Dim.Render(fmt.Sprintf("~%d", h.result.ChangedLines))
	}
	return s
}

func (c colView) render(w, h int) string {
	if w < 4 || h < 2 {
		return fit("", w, h)
	}
	b := c.st.g.Border
	bs := c.st.Border
	if c.selected {
		b = c.st.g.BorderOn
		bs = c.st.BorderOn
	}
	iw := w - 4 // borders and one space each side
	title := c.h.name
	if c.winner {
		title = c.st.g.Winner + " " + title
	}
	title = trunc(title, max(w-5, 1))
	ts := c.st.Name
	if c.winner {
		ts = c.st.Winner
	}
	top := bs.Render(b.TopLeft+b.Top) + ts.Render(title) + bs.Render(strings.Repeat(b.Top, max(w-3-lipglossWidth(title), 0))+b.TopRight)
	out := []string{top}
	body := []string{statusLine(c.st, c.h, c.now, c.frame), countsLine(c.st, c.h)}
	body = append(body, c.outputRows(iw, h-2-len(body))...)
	for len(body) < h-2 {
		body = append(body, "")
	}
	body = body[:h-2]
	side := bs.Render(b.Left)
	sideR := bs.Render(b.Right)
	for _, l := range body {
		out = append(out, side+" "+pad(l, iw)+" "+sideR)
	}
	out = append(out, bs.Render(b.BottomLeft+strings.Repeat(b.Bottom, w-2)+b.BottomRight))
	return strings.Join(out, "\n")
}

// outputRows fills a column's rows below its status: first the lines
// that name a failure (test id and message, paths cut to file names),
// wrapped so their end shows, in up to two thirds of the room; then the
// newest output lines, cut, in what is left.
func (c colView) outputRows(w, room int) []string {
	if room <= 0 || w <= 0 {
		return nil
	}
	// A finished hypothesis's reason (engine's one line: the first error
	// its output names) comes first, at most a third of the room.
	if r := c.h.result; r != nil && r.Reason != nil && room >= 3 {
		why := wrapStyled(*r.Reason, w, c.st.Failed.Render)
		why = why[:min(len(why), max(room/3, 1))]
		return append(why, c.outputRowsBelow(w, room-len(why))...)
	}
	return c.outputRowsBelow(w, room)
}

// outputRowsBelow is outputRows without the reason.
func (c colView) outputRowsBelow(w, room int) []string {
	if room <= 0 {
		return nil
	}
	recent := c.h.out.last(ringCap)
	fail := c.h.out.failures(ringCap)
	keyRoom := room
	if len(recent) > 0 && room >= 6 {
		keyRoom = room * 2 / 3
	}
	// Whole failures, the newest that fit: a wrapped message is never
	// shown without its start.
	var items [][]string
	total := 0
	for _, k := range keyLinesOf(recent, fail, room) {
		it := wrapStyled(k, w, c.st.Failed.UnsetBold().Render)
		items = append(items, it)
		total += len(it)
	}
	for len(items) > 1 && total > keyRoom {
		total -= len(items[0])
		items = items[1:]
	}
	var key []string
	for _, it := range items {
		key = append(key, it...)
	}
	if len(key) > keyRoom { // one failure longer than the room: its start
		key = key[:keyRoom]
	}
	rows := key
	if rest := room - len(rows); rest > 0 {
		if len(rows) > 0 && rest > 1 {
			rows = append(rows, c.st.Border.Render(strings.Repeat(c.st.g.Rule, w)))
			rest--
		}
		// The newest lines not shown above already.
		var tail []string
		for i := len(recent) - 1; i >= 0 && len(tail) < rest; i-- {
			if len(key) == 0 || !fail[i] {
				tail = append(tail, sanitize(recent[i], c.color))
			}
		}
		for i := len(tail) - 1; i >= 0; i-- {
			rows = append(rows, tail[i])
		}
	}
	return rows
}

func lipglossWidth(s string) int { return lipgloss.Width(s) }

// fmtDur is a short duration: 0.4s, 12.3s, 2m05s, 1h02m.
func fmtDur(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}
