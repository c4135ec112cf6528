package tui

import (
	"strings"
	"unicode/utf8"
)

// sanitize makes one line of a command's output safe to place in a cell of
// the screen: carriage returns keep what a terminal would show last, tabs
// become spaces, colour (SGR) sequences are kept only when keepColor is
// set, and every other control or escape sequence (cursor moves, erases,
// OSC titles, bells) is dropped, since it would break the layout.
func sanitize(s string, keepColor bool) string {
	if i := strings.LastIndexByte(strings.TrimRight(s, "\r"), '\r'); i >= 0 {
		s = s[i+1:]
	}
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	col, colored := 0, false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\t':
			n := 4 - col%4
			b.WriteString("    "[:n])
			col += n
			i++
		case c == 0x1b:
			end, sgr := escapeEnd(s, i)
			if sgr && keepColor {
				b.WriteString(s[i:end])
				colored = true
			}
			i = end
		case c < 0x20 || c == 0x7f:
			i++
		case c < 0x80:
			b.WriteByte(c)
			col++
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			if r == utf8.RuneError && size == 1 {
				r = '\uFFFD'
			}
			if r >= 0x80 && r < 0xa0 { // C1 controls
				continue
			}
			b.WriteRune(r)
			col++
		}
	}
	if colored {
		b.WriteString("\x1b[0m")
	}
	return b.String()
}

// escapeEnd returns the index just past the escape sequence starting at
// s[i] (an ESC), and whether it is an SGR (colour) sequence.
func escapeEnd(s string, i int) (int, bool) {
	if i+1 >= len(s) {
		return len(s), false
	}
	switch s[i+1] {
	case '[': // CSI: parameters and intermediates, then a final byte
		j := i + 2
		for j < len(s) && (s[j] >= 0x20 && s[j] <= 0x3f) {
			j++
		}
		if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
			sgr := s[j] == 'm'
			for _, c := range s[i+2 : j] {
				if !(c >= '0' && c <= '9' || c == ';' || c == ':') {
					sgr = false
				}
			}
			return j + 1, sgr
		}
		return j, false
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: up to BEL or ST
		for j := i + 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1, false
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2, false
			}
		}
		return len(s), false
	default:
		// Two-byte escapes (ESC c, ESC 7, ...) and charset selections.
		if (s[i+1] == '(' || s[i+1] == ')') && i+2 < len(s) {
			return i + 3, false
		}
		return i + 2, false
	}
}
