package tui

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// trunc cuts s to at most w cells, ANSI-aware, marking a cut with "…".
func trunc(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// pad cuts or pads s with spaces to exactly w cells.
func pad(s string, w int) string {
	s = trunc(s, w)
	if n := w - ansi.StringWidth(s); n > 0 {
		s += strings.Repeat(" ", n)
	}
	return s
}

// padLeft right-aligns s in w cells.
func padLeft(s string, w int) string {
	s = trunc(s, w)
	if n := w - ansi.StringWidth(s); n > 0 {
		s = strings.Repeat(" ", n) + s
	}
	return s
}

// fit makes a block exactly h lines of at most w cells: the final guard
// that keeps every frame inside the window whatever a component did.
func fit(s string, w, h int) string {
	if h <= 0 || w <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = trunc(l, w)
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// lines splits a rendered block into its lines ("" is no lines).
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func clamp(v, lo, hi int) int {
	if hi < lo {
		hi = lo
	}
	return max(lo, min(v, hi))
}

func stripped(s string) string { return ansi.Strip(s) }

// shortPath abbreviates the home directory as ~.
func shortPath(p string) string {
	if home, err := os.UserHomeDir(); err == nil && home != "/" && home != "" {
		if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return p
}

// wrapLines hard-wraps s to lines of at most w cells (ANSI-aware), so a
// long assertion message keeps its end instead of losing it to "…".
func wrapLines(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	if ansi.StringWidth(s) <= w {
		return []string{s}
	}
	lines := strings.Split(ansi.Wrap(s, w, ""), "\n")
	for i, l := range lines {
		// A break at a space may leave it at the line's end, one cell
		// over the width.
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(strings.TrimRight(ansi.Strip(l), " "), w, "")
		}
	}
	return lines
}

// wrapStyled wraps plain text to w cells and then styles each line.
func wrapStyled(s string, w int, style func(...string) string) []string {
	lines := wrapLines(s, w)
	for i, l := range lines {
		lines[i] = style(strings.TrimRight(l, " "))
	}
	return lines
}
