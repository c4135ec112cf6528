package tui

import (
	"fmt"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/shadow-dev/shadow/engine"
)

// maxDiffLines bounds how much of a diff is highlighted: past it the rest
// is shown plain (a generated file can make a diff of a million lines).
const maxDiffLines = 4000

// highlightDiff renders a unified diff line by line: file headers bold,
// hunk headers dim, added lines on a green tint and removed lines on a red
// one, and the code itself highlighted by chroma with the lexer its file
// name calls for. Added and removed lines are tinted out to width cells;
// lines are not cut: the viewport does that.
func highlightDiff(st Styles, diff string, width int) []string {
	if diff == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	var lexer chroma.Lexer
	cs := chromaStyle(st)
	out := make([]string, 0, len(lines))
	for i, l := range lines {
		l = sanitize(l, false)
		switch {
		case i >= maxDiffLines:
			out = append(out, l)
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
			if lx := lexerFor(l[4:]); lx != nil || strings.HasPrefix(l, "--- ") {
				lexer = lx
			}
			out = append(out, st.DiffFile.Render(l))
		case strings.HasPrefix(l, "@@"):
			out = append(out, st.DiffHunk.Render(l))
		case strings.HasPrefix(l, "+"):
			out = append(out, tint(highlightCode(st, cs, lexer, "+", l[1:], st.DiffAdd), st.DiffAdd, st.color, width))
		case strings.HasPrefix(l, "-"):
			out = append(out, tint(highlightCode(st, cs, lexer, "-", l[1:], st.DiffDel), st.DiffDel, st.color, width))
		case strings.HasPrefix(l, " "):
			out = append(out, highlightCode(st, cs, lexer, " ", l[1:], st.r.NewStyle()))
		default:
			out = append(out, st.Dim.Render(l))
		}
	}
	return out
}

// lexerFor picks a lexer from a diff header's path ("b/src/x.go").
func lexerFor(path string) chroma.Lexer {
	path = strings.TrimSpace(path)
	if i := strings.IndexByte(path, '\t'); i >= 0 {
		path = path[:i]
	}
	if path == "/dev/null" {
		return nil
	}
	if strings.HasPrefix(path, "a/") || strings.HasPrefix(path, "b/") {
		path = path[2:]
	}
	l := lexers.Match(path)
	if l == nil {
		return nil
	}
	return chroma.Coalesce(l)
}

func chromaStyle(st Styles) *chroma.Style {
	dark, light := codeStyles()
	if !st.r.HasDarkBackground() {
		return light
	}
	return dark
}

// highlightCode renders one line of code after its diff sign, each token
// in its chroma colour over the line's background (base).
func highlightCode(st Styles, cs *chroma.Style, lexer chroma.Lexer, sign, code string, base lipgloss.Style) string {
	if !st.color || lexer == nil {
		return base.Render(sign + code)
	}
	it, err := lexer.Tokenise(nil, code)
	if err != nil {
		return base.Render(sign + code)
	}
	text := cs.Get(chroma.Text).Colour
	var b strings.Builder
	b.WriteString(base.Render(sign))
	for tok := it(); tok != chroma.EOF; tok = it() {
		v := strings.TrimRight(tok.Value, "\n")
		if v == "" {
			continue
		}
		e := cs.Get(tok.Type)
		s := base
		if e.Colour.IsSet() && e.Colour != text {
			s = s.Foreground(lipgloss.Color(e.Colour.String()))
		}
		if e.Bold == chroma.Yes {
			s = s.Bold(true)
		}
		if e.Italic == chroma.Yes {
			s = s.Italic(true)
		}
		b.WriteString(s.Render(v))
	}
	return b.String()
}

// tint pads a rendered line to width cells with its background, so an
// added or removed line reads as a band across the pane.
func tint(line string, bg lipgloss.Style, color bool, width int) string {
	if !color {
		return line
	}
	if n := width - ansi.StringWidth(line); n > 0 {
		line += bg.Render(strings.Repeat(" ", n))
	}
	return line
}

// detailLines is what the diff pane holds for a hypothesis: why it may
// not win, its error, its diff highlighted, and for one that did not pass
// the lines that name its failure (wrapped to w, not cut) and its output
// tail.
func (m *Model) detailLines(h *hypState, w int) []string {
	st := m.st
	var out []string
	if m.shown != nil && m.shown.warning != "" {
		out = append(out, wrapLines(st.Warn.Render("WARNING: ")+sanitize(m.shown.warning, false), w)...)
	}
	r := h.result
	if r != nil {
		if r.Error != nil {
			out = append(out, wrapLines(st.Failed.Render("error: ")+sanitize(*r.Error, false), w)...)
		}
		for _, v := range verdictLines(st, r) {
			out = append(out, wrapLines(v, w)...)
		}
	}
	diff := ""
	if r != nil {
		diff = r.Diff
	}
	switch {
	case diff != "":
		memo := fmt.Sprintf("%s/%s/%d", m.shown.id, h.name, w)
		lines, ok := m.diff.memo[memo]
		if !ok {
			lines = highlightDiff(st, diff, w)
			m.diff.memo[memo] = lines
		}
		out = append(out, lines...)
	case r != nil:
		out = append(out, st.Dim.Render("no changes: this hypothesis is the checkout as it is"))
	default:
		out = append(out, st.Dim.Render("the diff shows when the hypothesis finishes"))
	}
	if r == nil || h.status == engine.StatusPassed || h.status == engine.StatusCancelled {
		return out
	}
	tail := strings.Split(strings.TrimRight(r.OutputTail, "\n"), "\n")
	if key := keyLines(tail, 12); len(key) > 0 {
		out = append(out, "", st.Bold.Render("why "+h.name+" failed"))
		for _, k := range key {
			out = append(out, wrapStyled(k, w, st.Failed.UnsetBold().Render)...)
		}
	}
	out = append(out, "", st.Bold.Render("output tail of "+h.name))
	if strings.TrimSpace(r.OutputTail) == "" {
		out = append(out, st.Dim.Render("(no output)"))
	} else {
		for _, l := range tail {
			out = append(out, sanitize(l, st.color))
		}
	}
	if r.Log != "" {
		out = append(out, st.Dim.Render("full output: enter · "+r.Log))
	}
	return out
}

// verdictLines say why a hypothesis may not win, or what to trust less:
// disqualified, the judge files it edits, tests it lost, flaky tests,
// reruns, ties.
func verdictLines(st Styles, r *engine.Result) []string {
	var out []string
	if r.Disqualified != nil {
		out = append(out, st.Warn.Render("disqualified: ")+*r.Disqualified)
	}
	if r.Tampered != nil {
		out = append(out, st.Warn.Render("tampered: ")+*r.Tampered)
	}
	if r.Suspicious != nil {
		out = append(out, st.Warn.Render("suspicious: ")+*r.Suspicious)
	}
	if len(r.EditsTests) > 0 {
		out = append(out, st.Warn.Render("edits tests: ")+strings.Join(r.EditsTests, ", "))
	}
	// What it does that no other passing candidate does (docs/report.md,
	// "Contrast").
	if c := r.Contrast; c != nil && c.Note != "" {
		out = append(out, st.Warn.Render("contrast: ")+c.Note)
	}
	if r.LostTests != nil && *r.LostTests > 0 {
		out = append(out, st.Warn.Render("lost tests: ")+fmt.Sprintf("%d the baseline ran", *r.LostTests))
	}
	if len(r.Flaky) > 0 {
		out = append(out, st.Warn.Render("flaky: ")+strings.Join(r.Flaky, ", "))
	}
	if r.Runs > 1 {
		out = append(out, st.Dim.Render(fmt.Sprintf("passed %d of %d runs", r.Passes, r.Runs)))
	}
	if len(r.TiesWith) > 0 {
		out = append(out, st.Dim.Render("ties with "+strings.Join(r.TiesWith, ", ")))
	}
	// The cross phase (engine/judge/cross.go): other candidates' reproductions.
	if c := r.Cross; c != nil && len(c.Failed) > 0 {
		out = append(out, st.Warn.Render("cross: ")+fmt.Sprintf("fails %d of the other candidates' reproductions (%s: %s)", len(c.Failed), c.Failed[0].From, c.Failed[0].Test))
	} else if c != nil && len(c.Passed) > 0 {
		out = append(out, st.Dim.Render(fmt.Sprintf("cross: passes the other candidates' %d reproduction(s)", len(c.Passed))))
	}
	return out
}
