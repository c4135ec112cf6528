package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// pager is a window onto a long list of lines, as less shows a file: the
// diff of a hypothesis (held in memory) or its output log (read from disk
// a window at a time, logview.go). It keeps the offset, the size Update
// gave it, and the search; View only reads it.
type pager struct {
	w, h  int
	off   int // index of the first line shown
	total int

	mem []string // the lines, when held in memory (the diff)

	// A log: the lines [winFrom, winFrom+len(win)) read so far.
	win     []string
	winFrom int

	query string // the search, "" none
	match int    // the line of the current match, -1 none
}

func (p *pager) setSize(w, h int) {
	p.w, p.h = max(w, 0), max(h, 0)
	p.off = clamp(p.off, 0, p.maxOff())
}

// setLines replaces the content with lines held in memory.
func (p *pager) setLines(lines []string) {
	p.mem, p.win, p.winFrom = lines, nil, 0
	p.total = len(lines)
	p.off = clamp(p.off, 0, p.maxOff())
	p.match = -1
}

func (p *pager) maxOff() int { return max(p.total-p.h, 0) }

func (p *pager) scroll(d int) { p.off = clamp(p.off+d, 0, p.maxOff()) }

func (p *pager) page(d int) { p.scroll(d * max(p.h-1, 1)) }

func (p *pager) top() { p.off = 0 }

func (p *pager) bottom() { p.off = p.maxOff() }

// goTo shows line i with a line of context above it.
func (p *pager) goTo(i int) { p.off = clamp(i-1, 0, p.maxOff()) }

// below is how many lines follow the window.
func (p *pager) below() int { return max(p.total-p.off-p.h, 0) }

// line returns line i when it is at hand.
func (p *pager) line(i int) (string, bool) {
	if p.mem != nil {
		if i >= 0 && i < len(p.mem) {
			return p.mem[i], true
		}
		return "", false
	}
	if j := i - p.winFrom; j >= 0 && j < len(p.win) {
		return p.win[j], true
	}
	return "", false
}

// missing reports whether lines of the window are not read yet (a log).
func (p *pager) missing() bool {
	if p.mem != nil {
		return false
	}
	end := min(p.off+p.h, p.total)
	return p.off < p.winFrom || end > p.winFrom+len(p.win)
}

// position is the indicator less shows: "line 4933/5004 (98%)".
func (p *pager) position() string {
	if p.total == 0 {
		return "empty"
	}
	last := min(p.off+p.h, p.total)
	pct := 100
	if p.total > p.h {
		pct = last * 100 / p.total
	}
	return fmt.Sprintf("line %d/%d (%d%%)", p.off+1, p.total, pct)
}

// view renders the h rows of the window, cut to w cells; matches of the
// search are highlighted (on the line's plain text, since a match can
// straddle the colours of a highlighted diff).
func (p *pager) view(st Styles) []string {
	out := make([]string, 0, p.h)
	for i := p.off; i < p.off+p.h && i < p.total; i++ {
		l, ok := p.line(i)
		if !ok {
			out = append(out, st.Dim.Render("…"))
			continue
		}
		if p.query != "" {
			l = highlightMatches(st, l, p.query, i == p.match)
		}
		out = append(out, trunc(l, p.w))
	}
	return out
}

// find searches the lines held in memory for q from line from in
// direction dir (1 down, -1 up), wrapping around; -1 when nothing matches.
func (p *pager) find(q string, from, dir int) int {
	if p.total == 0 || q == "" {
		return -1
	}
	for k := range p.total {
		i := ((from+dir*k)%p.total + p.total) % p.total
		if l, ok := p.line(i); ok && matchIndex(ansi.Strip(l), q) >= 0 {
			return i
		}
	}
	return -1
}

// matchIndex finds q in s, case-insensitively unless q has a capital
// letter (smartcase, as less -i and vim do).
func matchIndex(s, q string) int {
	if strings.ToLower(q) == q {
		return strings.Index(strings.ToLower(s), q)
	}
	return strings.Index(s, q)
}

// highlightMatches renders the line's plain text with every match of q
// marked; the current match's line is marked whole at its start.
func highlightMatches(st Styles, l, q string, current bool) string {
	plain := ansi.Strip(l)
	if matchIndex(plain, q) < 0 {
		return l
	}
	var b strings.Builder
	rest := plain
	for {
		i := matchIndex(rest, q)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		b.WriteString(st.Match.Render(rest[i : i+len(q)]))
		rest = rest[i+len(q):]
	}
	s := b.String()
	if current {
		s = st.Marker.Render(st.g.Sel) + s
	}
	return s
}
