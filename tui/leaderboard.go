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
				return st.Winner.Render("★ winner")
			}
			return ""
		}},
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
	// Keep the selected row in view when the list is taller than h, and
	// say how many rows are out of view rather than cut them silently.
	body := h - 1
	if len(rows) > body && body > 1 {
		body--
	}
	first := 0
	for i, r := range rows {
		if r.name == sel && i >= body {
			first = i - body + 1
		}
	}
	last := min(len(rows), first+body)
	for i := first; i < last && len(out) < h; i++ {
		r := rows[i]
		rank := rv.rankOf(r.name)
		if !final && r.result != nil {
			rank = i + 1
		}
		var cells []string
		for _, c := range cols {
			v := c.cell(rank, r)
			if c.right {
				cells = append(cells, padLeft(v, c.width))
			} else {
				cells = append(cells, pad(v, c.width))
			}
		}
		line := "  " + strings.TrimRight(strings.Join(cells, " "), " ")
		if r.name == sel {
			line = st.Selected.Render(pad("› "+ansi.Strip(line[2:]), w))
		}
		out = append(out, line)
	}
	if hidden := len(rows) - (last - first); hidden > 0 && len(out) < h {
		out = append(out, st.Dim.Render(fmt.Sprintf("  … %d more (←/→ selects)", hidden)))
	}
	return fit(strings.Join(out, "\n"), w, h)
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
	if len(l) == 0 {
		return "0"
	}
	if fixed {
		return st.Passed.UnsetBold().Render(fmt.Sprintf("+%d", len(l)))
	}
	return st.Failed.UnsetBold().Render(fmt.Sprintf("-%d", len(l)))
}
