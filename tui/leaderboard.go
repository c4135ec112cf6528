package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/shadow-dev/shadow/engine"
)

// lbCol is one column of the leaderboard; narrow screens drop the columns
// with the lowest priority first.
type lbCol struct {
	title    string
	width    int
	right    bool
	priority int // lower is kept longer
	cell     func(rank int, h *hypState) string
}

// renderLeaderboard draws the ranking: rank, name, status, passed/failed,
// fixed/broken against the baseline, changed lines, duration, winner. rows
// is in rank order; sel is the selected hypothesis's name.
func renderLeaderboard(st Styles, rv *runView, sel string, w, h int, now time.Time) string {
	if rv == nil || len(rv.hyps) == 0 {
		return fit(st.Dim.Render("no results yet"), w, h)
	}
	return renderLeaderboardOf(st, rv, rv.ranked(), sel, w, h, now)
}

// renderLeaderboardOf draws rows (rank order, perhaps filtered by name).
func renderLeaderboardOf(st Styles, rv *runView, rows []*hypState, sel string, w, h int, now time.Time) string {
	if len(rows) == 0 {
		return fit(st.Dim.Render("no hypothesis matches the filter · esc clears it"), w, h)
	}
	final := rv.report != nil
	nameW := 10
	for _, r := range rows {
		nameW = max(nameW, ansi.StringWidth(r.name))
	}
	nameW = min(nameW, 24)
	winner := rv.winner()
	marksW := 0
	for _, r := range rows {
		marksW = max(marksW, ansi.StringWidth(ansi.Strip(marks(st, r))))
	}
	if marksW > 0 {
		marksW = clamp(marksW, 5, 12) // the detail spells them out
	}
	cols := []lbCol{
		{"#", 2, true, 0, func(rank int, _ *hypState) string {
			if rank == 0 {
				return "–"
			}
			return strconv.Itoa(rank)
		}},
		{"hypothesis", nameW, false, 0, func(_ int, h *hypState) string { return h.name }},
		{"status", 10, false, 1, func(_ int, h *hypState) string {
			return st.status(h.status).Render(strings.ReplaceAll(h.status, "_", " "))
		}},
		{"notes", marksW, false, 1, func(_ int, h *hypState) string { return marks(st, h) }},
		{"pass", 5, true, 2, func(_ int, h *hypState) string {
			if h.tests == nil {
				return st.Dim.Render("–")
			}
			return strconv.Itoa(h.tests.Passed)
		}},
		{"fail", 5, true, 2, func(_ int, h *hypState) string {
			if h.tests == nil {
				return st.Dim.Render("–")
			}
			if h.tests.Failed > 0 {
				return st.Failed.UnsetBold().Render(strconv.Itoa(h.tests.Failed))
			}
			return "0"
		}},
		{"fixed", 6, true, 4, func(_ int, h *hypState) string { return listCount(st, h, true, final) }},
		{"broken", 7, true, 4, func(_ int, h *hypState) string { return listCount(st, h, false, final) }},
		{"±lines", 7, true, 3, func(_ int, h *hypState) string {
			if h.result == nil {
				return st.Dim.Render("–")
			}
			return "~" + strconv.Itoa(h.result.ChangedLines)
		}},
		{"time", 7, true, 3, func(_ int, h *hypState) string {
			switch {
			case h.result != nil && h.status != engine.StatusQueued:
				return fmtDur(time.Duration(h.result.DurationMS) * time.Millisecond)
			case h.status == engine.StatusRunning && !h.started.IsZero():
				return st.Dim.Render(fmtDur(now.Sub(h.started)))
			}
			return st.Dim.Render("–")
		}},
		{"", 8, false, 1, func(_ int, h *hypState) string {
			if winner != "" && h.name == winner {
				return st.Winner.Render(st.g.Winner + " winner")
			}
			return ""
		}},
	}
	if marksW == 0 { // no verdict to show: no column for it
		cols = append(cols[:3], cols[4:]...)
	}
	// Drop low-priority columns until the row fits.
	for p := 4; p > 0; p-- {
		if rowWidth(cols)+2 <= w {
			break
		}
		var kept []lbCol
		for _, c := range cols {
			if c.priority < p {
				kept = append(kept, c)
			}
		}
		cols = kept
	}
	var out []string
	var hdr []string
	for _, c := range cols {
		if c.right {
			hdr = append(hdr, padLeft(c.title, c.width))
		} else {
			hdr = append(hdr, pad(c.title, c.width))
		}
	}
	out = append(out, st.Dim.Render("  "+strings.TrimRight(strings.Join(hdr, " "), " ")))
	for _, r := range visibleRows(rows, sel, h-1) {
		i := r.i
		rank := rv.rankOf(r.h.name)
		if !final && r.h.result != nil {
			rank = i + 1
		}
		var cells []string
		for _, c := range cols {
			v := c.cell(rank, r.h)
			if c.right {
				cells = append(cells, padLeft(v, c.width))
			} else {
				cells = append(cells, pad(v, c.width))
			}
		}
		line := "  " + strings.TrimRight(strings.Join(cells, " "), " ")
		if r.h.name == sel {
			line = st.Selected.Render(pad(st.g.Sel+" "+ansi.Strip(line[2:]), w))
		}
		out = append(out, line)
	}
	if above, below := scrolledOut(rows, sel, h-1); above+below > 0 && len(out) < h {
		out = append(out, scrollNote(st, rows, sel, h-1, above, below, w))
	}
	return fit(strings.Join(out, "\n"), w, h)
}

type rankedRow struct {
	i int // rank order index
	h *hypState
}

// visibleRows picks the rows a leaderboard of room rows (its header
// excluded) shows: all when they fit; else a window of them that scrolls
// with the selection (the best ranked while the selection is among them),
// keeping one row to say what is above and below.
func visibleRows(rows []*hypState, sel string, room int) []rankedRow {
	from, to := window(rows, sel, room)
	var out []rankedRow
	for i := from; i < to; i++ {
		out = append(out, rankedRow{i, rows[i]})
	}
	return out
}

// window is the range of rows shown in room rows (one of them the
// scroll note when not all fit).
func window(rows []*hypState, sel string, room int) (from, to int) {
	n := len(rows)
	if n <= room {
		return 0, n
	}
	room-- // the scroll note
	if room <= 0 {
		return 0, 0
	}
	selAt := 0
	for i, h := range rows {
		if h.name == sel {
			selAt = i
		}
	}
	from = clamp(selAt-room+1, 0, n-room) // the selection at the bottom once it scrolls
	return from, from + room
}

// scrolledOut counts the rows above and below the window.
func scrolledOut(rows []*hypState, sel string, room int) (above, below int) {
	from, to := window(rows, sel, room)
	if to == 0 && from == 0 && len(rows) > room {
		return 0, len(rows)
	}
	return from, len(rows) - to
}

// scrollNote is the row that stands for the rows scrolled out: how many
// above and below, and below, the next few with their status marks, so
// the rest of the run stays in view in one line.
func scrollNote(st Styles, rows []*hypState, sel string, room, above, below, w int) string {
	var parts []string
	if above > 0 {
		parts = append(parts, fmt.Sprintf("%s %d above", st.g.Above, above))
	}
	if below > 0 {
		parts = append(parts, fmt.Sprintf("%s %d below", st.g.Below, below))
	}
	s := st.Dim.Render("  " + strings.Join(parts, " · ") + ":")
	_, to := window(rows, sel, room)
	for _, h := range rows[to:] {
		s += " " + st.status(h.status).Render(statusIcon(st.g, h.status)) + " " + h.name
	}
	return trunc(s+st.Dim.Render(" (j/k, g/G, pgup/pgdn, / filter)"), w)
}

// statusIcon is a status's one-glyph mark.
func statusIcon(g Glyphs, status string) string {
	switch status {
	case engine.StatusPassed:
		return g.Passed
	case engine.StatusFailed:
		return g.Failed
	case engine.StatusTimedOut:
		return g.TimedOut
	case engine.StatusError:
		return g.Error
	case engine.StatusCancelled:
		return g.Cancelled
	case engine.StatusRunning:
		return g.Spinner[0]
	}
	return g.Queued
}

// marks are a result's verdict notes: disqualified, edits tests, flaky,
// lost tests. Words, not glyphs: they must read in any font.
func marks(st Styles, h *hypState) string {
	r := h.result
	if r == nil {
		return ""
	}
	var m []string
	switch {
	case r.Disqualified != nil: // why is in the diff pane: edits or lost tests
		m = append(m, st.Warn.Render("disq"))
	case len(r.EditsTests) > 0: // allowed (--allow-test-edits), still said
		m = append(m, st.Warn.Render("test edit"))
	case r.LostTests != nil && *r.LostTests > 0:
		m = append(m, st.Warn.Render("lost tests"))
	}
	if r.Tampered != nil {
		m = append(m, st.Warn.Render("tampered"))
	} else if r.Suspicious != nil {
		m = append(m, st.Warn.Render("suspicious"))
	}
	if len(r.Flaky) > 0 {
		m = append(m, st.Warn.Render("flaky"))
	}
	// An outlier (docs/report.md, "Contrast"): it does what no other
	// passing candidate does; the diff pane's contrast line says what.
	if len(m) == 0 && r.Contrast != nil && r.Contrast.Note != "" {
		m = append(m, st.Warn.Render("odd"))
	}
	return strings.Join(m, " ")
}

func rowWidth(cols []lbCol) int {
	n := 0
	for _, c := range cols {
		n += c.width + 1
	}
	return n - 1
}

// listCount is a row's fixed or broken count: the report's once the run
// is over; during the run, the hyp_finished event's, which the engine
// fills against the baseline once both have finished (null before).
func listCount(st Styles, h *hypState, fixed, _ bool) string {
	if h.result == nil {
		return st.Dim.Render("–")
	}
	l := h.result.Broken
	if fixed {
		l = h.result.Fixed
	}
	if l == nil { // unknown: the output cannot tell (docs/report.md)
		return st.Dim.Render("–")
	}
	if len(l) == 0 {
		return "0"
	}
	if fixed {
		return st.Passed.UnsetBold().Render(fmt.Sprintf("+%d", len(l)))
	}
	return st.Failed.UnsetBold().Render(fmt.Sprintf("-%d", len(l)))
}
