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
	rows := rv.ranked()
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
	if hidden := hiddenRows(rows, sel, h-1); len(hidden) > 0 && len(out) < h {
		out = append(out, strip(st, hidden, w))
	}
	return fit(strings.Join(out, "\n"), w, h)
}

type rankedRow struct {
	i int // rank order index
	h *hypState
}

// visibleRows picks the rows a leaderboard of room rows (its header
// excluded) shows: all when they fit; else the best ranked and the
// selected one, keeping one row to say what is left out.
func visibleRows(rows []*hypState, sel string, room int) []rankedRow {
	var out []rankedRow
	if len(rows) <= room {
		for i, h := range rows {
			out = append(out, rankedRow{i, h})
		}
		return out
	}
	room-- // the "N more" row
	if room <= 0 {
		return nil
	}
	selAt := -1
	for i, h := range rows {
		if h.name == sel {
			selAt = i
		}
	}
	for i, h := range rows {
		if len(out) == room-1 && selAt > i {
			out = append(out, rankedRow{selAt, rows[selAt]})
			break
		}
		if len(out) == room {
			break
		}
		out = append(out, rankedRow{i, h})
	}
	return out
}

func hiddenRows(rows []*hypState, sel string, room int) []*hypState {
	shown := map[*hypState]bool{}
	for _, r := range visibleRows(rows, sel, room) {
		shown[r.h] = true
	}
	var out []*hypState
	for _, h := range rows {
		if !shown[h] {
			out = append(out, h)
		}
	}
	return out
}

// strip is the row that stands for the hypotheses a short leaderboard
// leaves out: each with its status mark, in rank order, so that the rest
// of the run is still in view in one line.
func strip(st Styles, hidden []*hypState, w int) string {
	s := st.Dim.Render(fmt.Sprintf("  + %d more:", len(hidden)))
	for _, h := range hidden {
		s += " " + st.status(h.status).Render(statusIcon(st.g, h.status)) + " " + h.name
	}
	return trunc(s+st.Dim.Render(" (←/→)"), w)
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
	if len(r.Flaky) > 0 {
		m = append(m, st.Warn.Render("flaky"))
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

func listCount(st Styles, h *hypState, fixed, final bool) string {
	if !final || h.result == nil {
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
