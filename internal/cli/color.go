package cli

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// colorMode is --color: auto (colour when stdout is a terminal, NO_COLOR
// is unset and TERM is not dumb: https://no-color.org, gh's and
// gotestsum's rule), always, never.
type colorMode string

func (c *colorMode) String() string {
	if *c == "" {
		return "auto"
	}
	return string(*c)
}
func (c *colorMode) Type() string { return "WHEN" }
func (c *colorMode) Set(v string) error {
	switch v {
	case "auto", "always", "never":
		*c = colorMode(v)
		return nil
	}
	return fmt.Errorf("want auto, always or never")
}

// colorOn decides --color for w.
func (s Streams) colorOn(mode colorMode, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return s.terminal(w) && s.getenv("NO_COLOR") == "" && s.getenv("TERM") != "dumb"
}

// SGR sequences (ECMA-48): the 16 basic colours every terminal has.
const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrCyan   = "\x1b[36m"
	sgrDim    = "\x1b[2m"
)

var (
	rowExitOK  = regexp.MustCompile(`\bexit 0\b`)
	rowExitBad = regexp.MustCompile(`\b(exit [1-9]\d*|timed out|error)\b`)
)

// colorReport colours the text report engine.WriteText wrote (text, the
// hypotheses' tails already stripped of escapes): the winner and passing
// rows green, failures red, reasons yellow, the winner's diff as git
// colours it.
func colorReport(text []byte) []byte {
	var out bytes.Buffer
	inDiff := false
	for _, l := range strings.SplitAfter(string(text), "\n") {
		body := strings.TrimRight(l, "\n")
		nl := l[len(body):]
		c := ""
		switch {
		case strings.HasPrefix(body, "$ "):
			c = sgrBold
		case strings.HasPrefix(body, "winner: "):
			c, inDiff = sgrBold+sgrGreen, true
		case strings.HasPrefix(body, "no winner") || strings.HasPrefix(body, "no hypothesis passed"):
			c = sgrBold + sgrRed
		case strings.HasPrefix(body, "--- ") && !inDiff:
			c = sgrBold + sgrRed
		case strings.HasPrefix(body, "reason: "):
			c = sgrYellow
		case inDiff && strings.HasPrefix(body, "@@"):
			c = sgrCyan
		case inDiff && (strings.HasPrefix(body, "+++ ") || strings.HasPrefix(body, "--- ")):
			c = sgrBold
		case inDiff && strings.HasPrefix(body, "+"):
			c = sgrGreen
		case inDiff && strings.HasPrefix(body, "-"):
			c = sgrRed
		case strings.HasPrefix(body, "  ") && strings.Contains(body, "<- winner"):
			c = sgrBold + sgrGreen
		case strings.HasPrefix(body, "  ") && rowExitOK.MatchString(body):
			c = sgrGreen
		case strings.HasPrefix(body, "  ") && rowExitBad.MatchString(body):
			c = sgrRed
		case strings.HasPrefix(body, "cancelled:") || strings.HasPrefix(body, "stale:") || strings.HasPrefix(body, "stopped:"):
			c = sgrYellow
		}
		if body == "" || strings.HasPrefix(body, "applied to") {
			inDiff = false
		}
		if c == "" || body == "" {
			out.WriteString(l)
			continue
		}
		out.WriteString(c + body + sgrReset + nl)
	}
	return out.Bytes()
}
