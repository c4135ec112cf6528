package tui

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
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
