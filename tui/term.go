package tui

import (
	"os"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/mattn/go-isatty"
	"github.com/muesli/termenv"
)

// Look is how the screen draws on a terminal: the renderer (its colour
// profile), whether colours are off while attributes stay (Mono), and the
// glyph set.
type Look struct {
	Renderer *lipgloss.Renderer
	Mono     bool
	ASCII    bool
}

// terminalLook decides the look of stdout. termenv gives no profile at
// all (Ascii: not even bold or reverse) to a TERM it does not know as
// colourful, TERM=screen among them, so a selection would be invisible
// there. Every terminal but a dumb one does bold, reverse and underline
// (the terminfo capabilities bold, rev, smul of vt100 on), so such a
// terminal gets the ANSI profile: 8 colours for the screen/tmux family,
// which has them, attributes only (Mono) for the rest. NO_COLOR keeps
// its meaning here as before: no escape sequences at all.
func terminalLook() Look {
	r := lipgloss.NewRenderer(os.Stdout)
	r.HasDarkBackground() // asked now, before the program owns the terminal's input
	// The default renderer (bubbles' styles use it) too: bubbletea's own
	// init no longer asks, see internal/quietterm.
	lipgloss.HasDarkBackground()
	tty := isatty.IsTerminal(os.Stdout.Fd())
	l := Look{Renderer: r, ASCII: asciiTerminal(os.Getenv)}
	l.Mono = upgradeProfile(r, os.Getenv, tty)
	return l
}

// upgradeProfile lifts an Ascii profile to ANSI on a terminal that can do
// attributes (see terminalLook); it returns true when that terminal has
// no colours (Mono).
func upgradeProfile(r *lipgloss.Renderer, getenv func(string) string, tty bool) bool {
	if r.ColorProfile() != termenv.Ascii || !tty || getenv("NO_COLOR") != "" {
		return false
	}
	t := getenv("TERM")
	if t == "" || t == "dumb" {
		return false
	}
	r.SetColorProfile(termenv.ANSI)
	for _, p := range []string{"screen", "tmux", "rxvt", "putty", "cygwin", "konsole", "eterm", "st", "foot", "alacritty"} {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	return true
}
