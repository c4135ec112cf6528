package tui

import (
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Styles are every style of the screen, built from one lipgloss renderer
// so that the renderer's colour profile (NO_COLOR, 256 colours, a pinned
// profile in tests) governs all of them.
type Styles struct {
	r        *lipgloss.Renderer
	color    bool // the profile has colours at all (not NO_COLOR, not Mono)
	attrs    bool // the profile draws bold, reverse and underline
	g        Glyphs
	Header   lipgloss.Style
	Dim      lipgloss.Style
	Bold     lipgloss.Style
	Tab      lipgloss.Style
	TabOn    lipgloss.Style
	Border   lipgloss.Style // border colour of an unselected column
	BorderOn lipgloss.Style
	Name     lipgloss.Style
	Passed   lipgloss.Style
	Failed   lipgloss.Style
	Running  lipgloss.Style
	Queued   lipgloss.Style
	Warn     lipgloss.Style
	Winner   lipgloss.Style
	Selected lipgloss.Style // the selected row of a list
	Output   lipgloss.Style
	Prompt   lipgloss.Style
	DiffAdd  lipgloss.Style
	DiffDel  lipgloss.Style
	DiffHunk lipgloss.Style
	DiffFile lipgloss.Style
	HelpKey  lipgloss.Style
	HelpDesc lipgloss.Style
	HelpSep  lipgloss.Style
	Match    lipgloss.Style // a search match
	Marker   lipgloss.Style // "▼ 12 more lines"
}

// NewStyles builds the styles on r, in colour.
func NewStyles(r *lipgloss.Renderer) Styles { return newStyles(Look{Renderer: r}) }

// newStyles builds the styles of a look: on a Mono terminal every colour
// is dropped and the attributes (bold, reverse, underline) carry the
// meaning; the glyph set follows the look.
func newStyles(l Look) Styles {
	r := l.Renderer
	mono := l.Mono
	c := func(light, dark string) lipgloss.TerminalColor {
		if mono {
			return lipgloss.NoColor{}
		}
		return lipgloss.AdaptiveColor{Light: light, Dark: dark}
	}
	s := Styles{r: r, attrs: r.ColorProfile() != termenv.Ascii, g: UnicodeGlyphs()}
	s.color = s.attrs && !mono
	if l.ASCII {
		s.g = ASCIIGlyphs()
	}
	s.Header = r.NewStyle().Bold(true)
	s.Dim = r.NewStyle().Foreground(c("245", "243"))
	s.Bold = r.NewStyle().Bold(true)
	s.Tab = r.NewStyle().Foreground(c("243", "246"))
	s.TabOn = r.NewStyle().Bold(true).Foreground(c("0", "15")).Background(c("153", "24"))
	s.Border = r.NewStyle().Foreground(c("250", "238"))
	s.BorderOn = r.NewStyle().Foreground(c("33", "75"))
	s.Name = r.NewStyle().Bold(true)
	s.Passed = r.NewStyle().Foreground(c("28", "78")).Bold(true)
	s.Failed = r.NewStyle().Foreground(c("160", "203")).Bold(true)
	s.Running = r.NewStyle().Foreground(c("33", "81"))
	s.Queued = r.NewStyle().Foreground(c("245", "243"))
	s.Warn = r.NewStyle().Foreground(c("130", "214")).Bold(true)
	s.Winner = r.NewStyle().Foreground(c("28", "78")).Bold(true)
	s.Selected = r.NewStyle().Reverse(true)
	s.Output = r.NewStyle().Foreground(c("238", "250"))
	s.Prompt = r.NewStyle().Bold(true).Foreground(c("130", "214"))
	s.DiffAdd = r.NewStyle().Background(c("#dafbe1", "#12361f"))
	s.DiffDel = r.NewStyle().Background(c("#ffebe9", "#3f1518"))
	s.DiffHunk = r.NewStyle().Foreground(c("30", "73"))
	s.DiffFile = r.NewStyle().Bold(true)
	s.HelpKey = r.NewStyle().Foreground(c("241", "250")).Bold(true)
	s.HelpDesc = r.NewStyle().Foreground(c("245", "243"))
	s.HelpSep = r.NewStyle().Foreground(c("250", "238"))
	s.Match = r.NewStyle().Reverse(true).Bold(true)
	s.Marker = r.NewStyle().Foreground(c("130", "214"))
	if r.ColorProfile() == termenv.ANSI && !mono {
		// 8 colours: the tinted backgrounds would round to a block of
		// plain green or red under the code; colour the text instead.
		s.DiffAdd = r.NewStyle().Foreground(lipgloss.Color("2"))
		s.DiffDel = r.NewStyle().Foreground(lipgloss.Color("1"))
	}
	if mono {
		s.TabOn = r.NewStyle().Bold(true).Reverse(true)
		s.BorderOn = r.NewStyle().Bold(true)
		s.Winner = r.NewStyle().Bold(true).Underline(true)
		s.DiffAdd = r.NewStyle().Bold(true)
		s.DiffDel = r.NewStyle()
		s.DiffHunk = r.NewStyle().Underline(true)
		s.Marker = r.NewStyle().Bold(true)
	}
	return s
}

// status renders a status word in its colour.
func (s Styles) status(status string) lipgloss.Style {
	switch status {
	case "passed":
		return s.Passed
	case "failed", "error", "timed_out":
		return s.Failed
	case "running":
		return s.Running
	case "cancelled":
		return s.Warn
	}
	return s.Queued
}
