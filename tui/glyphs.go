package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/charmbracelet/lipgloss"
)

// Glyphs are the few symbols the screen draws. The Unicode set keeps to
// characters that the common monospace fonts (DejaVu Sans Mono, Menlo, SF
// Mono, Cascadia, Consolas with its fallback) draw one cell wide and that
// no terminal shows as emoji: no ⏱ (a two-cell emoji in some terminals, a
// box in others). The ASCII set is for terminals or locales without UTF-8.
type Glyphs struct {
	Passed, Failed, TimedOut, Error, Cancelled, Queued string
	Winner, Sel, Below, Above, Rule, Left, Right       string
	Spinner                                            []string
	Border, BorderOn                                   lipgloss.Border
}

// UnicodeGlyphs is the default set.
func UnicodeGlyphs() Glyphs {
	return Glyphs{
		Passed: "✓", Failed: "✗", TimedOut: "✗", Error: "!", Cancelled: "–", Queued: "·",
		Winner: "★", Sel: "›", Below: "▼", Above: "▲", Rule: "─", Left: "‹", Right: "›",
		Spinner: []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"},
		Border:  lipgloss.RoundedBorder(), BorderOn: lipgloss.ThickBorder(),
	}
}

// ASCIIGlyphs draws with 7-bit characters only.
func ASCIIGlyphs() Glyphs {
	on := lipgloss.ASCIIBorder()
	on.Top, on.Bottom, on.Left, on.Right = "=", "=", "#", "#"
	return Glyphs{
		Passed: "ok", Failed: "x", TimedOut: "x", Error: "!", Cancelled: "-", Queued: ".",
		Winner: "*", Sel: ">", Below: "v", Above: "^", Rule: "-", Left: "<", Right: ">",
		Spinner: []string{"|", "/", "-", "\\"},
		Border:  lipgloss.ASCIIBorder(), BorderOn: on,
	}
}

// asciiTerminal: the terminal or the locale cannot show UTF-8. The
// locale is read as setlocale(3) does (LC_ALL, then LC_CTYPE, then LANG);
// with none set the terminal is trusted (most containers set no locale
// while their terminal is UTF-8). The Linux console's font has few of the
// glyphs, and vt100/vt220 have none.
func asciiTerminal(getenv func(string) string) bool {
	switch t := getenv("TERM"); {
	case t == "linux", strings.HasPrefix(t, "vt1"), strings.HasPrefix(t, "vt2"):
		return true
	}
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := getenv(k); v != "" {
			v = strings.ToLower(v)
			return !strings.Contains(v, "utf-8") && !strings.Contains(v, "utf8")
		}
	}
	return false
}

// asciiFold replaces what is left of non-ASCII in a frame (separators,
// the help's arrows, a command's own output) one character for one, so
// that widths stay as laid out, for a terminal that cannot show UTF-8.
func asciiFold(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r < 0x80 {
			return r
		}
		if a, ok := asciiOf[r]; ok {
			return a
		}
		if ansi.StringWidth(string(r)) != 1 {
			return -1 // dropped: laid out as zero or two cells, never one
		}
		return '?'
	}, s)
}

var asciiOf = map[rune]rune{
	'·': '.', '•': '*', '…': '~', '–': '-', '—': '-', '─': '-', '━': '=', '│': '|', '┃': '#',
	'←': '<', '→': '>', '↑': '^', '↓': 'v', '‹': '<', '›': '>', '▼': 'v', '▲': '^',
	'✓': '+', '✗': 'x', '★': '*', '●': '@', '○': 'o', '±': '~', '█': '_',
}
