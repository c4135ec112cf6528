package engine

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"time"
)

// Limits of what a hypothesis's output keeps in memory; the full output is
// in its log file.
const (
	tailLines      = 40  // last lines kept
	lineCap        = 400 // bytes kept of one line
	partialCap     = 64 << 10
	sectionMax     = 8  // error sections kept
	sectionLines   = 25 // lines kept per section
	sectionContext = 2  // lines before the trigger kept in a section
)

// errorStart matches lines that open an error section: compiler errors,
// panics, failing tests, assertion blocks. A flood of warnings after them
// cannot push them out of the report.
var errorStart = regexp.MustCompile(`^(--- FAIL:|panic:|fatal error:|error(\[E\d+\])?:|thread '.*' panicked|Traceback \(most recent call last\)|=+ (FAILURES|ERRORS) =+|FAILED |E   |AssertionError|FAIL |\s*● |not ok |\S+\.\w+:\d+(:\d+)?: (error|undefined|cannot|syntax error|expected))`)

// mayOpenSection is a cheap test that rules out most lines before
// errorStart runs (a regexp per line was most of the cost of a flood of
// output): it holds for every line errorStart matches, alternative by
// alternative, and for few others. Regexp's \s is [\t\n\f\r ]
// (regexp/syntax's Perl classes).
func mayOpenSection(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	switch s[0] {
	case '-':
		if hasPrefix(s, "--- FAIL:") {
			return true
		}
	case 'p':
		if hasPrefix(s, "panic:") {
			return true
		}
	case 'f':
		if hasPrefix(s, "fatal error:") {
			return true
		}
	case 'e':
		if hasPrefix(s, "error:") || hasPrefix(s, "error[E") {
			return true
		}
	case 't':
		if hasPrefix(s, "thread '") {
			return true
		}
	case 'T':
		if hasPrefix(s, "Traceback (most recent call last)") {
			return true
		}
	case '=':
		i := 0
		for i < len(s) && s[i] == '=' {
			i++
		}
		if hasPrefix(s[i:], " FAILURES =") || hasPrefix(s[i:], " ERRORS =") {
			return true
		}
	case 'F':
		if hasPrefix(s, "FAIL") {
			return true
		}
	case 'E':
		if hasPrefix(s, "E   ") {
			return true
		}
	case 'A':
		if hasPrefix(s, "AssertionError") {
			return true
		}
	case 'n':
		if hasPrefix(s, "not ok ") {
			return true
		}
	}
	// `\s*● `
	i := 0
	for i < len(s) && isRegexpSpace(s[i]) {
		i++
	}
	if hasPrefix(s[i:], "● ") {
		return true
	}
	// `\S+\.\w+:\d+(:\d+)?: (error|...)`: the line's first word ends
	// with ':' and the next one is one of those.
	if i > 0 {
		return false
	}
	for i < len(s) && !isRegexpSpace(s[i]) {
		i++
	}
	if i == 0 || i == len(s) || s[i-1] != ':' || s[i] != ' ' {
		return false
	}
	rest := s[i+1:]
	return hasPrefix(rest, "error") || hasPrefix(rest, "undefined") || hasPrefix(rest, "cannot") ||
		hasPrefix(rest, "syntax error") || hasPrefix(rest, "expected")
}

func isRegexpSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func hasPrefix(s []byte, p string) bool { return len(s) >= len(p) && string(s[:len(p)]) == p }

// opensSection reports whether the line s (ANSI escapes removed) opens an
// error section.
func opensSection(s []byte) bool { return mayOpenSection(s) && errorStart.Match(s) }

// noise lines are dropped from reports: cargo prints them while parallel
// hypotheses queue on ~/.cargo's package-cache lock, which lives outside
// the namespace.
var noise = regexp.MustCompile(`^\s*Blocking waiting for file lock`)

var ansiSeq = regexp.MustCompile(`\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])`)

// stripANSI removes colour and cursor sequences.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	return ansiSeq.ReplaceAllString(s, "")
}

// stripANSIBytes is stripANSI of a line held in a buffer: b itself when
// it has no escape, else a new slice.
func stripANSIBytes(b []byte) []byte {
	if bytes.IndexByte(b, 0x1b) < 0 {
		return b
	}
	return ansiSeq.ReplaceAll(b, nil)
}

// goTestJSONOutput turns a `go test -json` event into the text it carries,
// so tails and live output read like plain go test; events without output
// are dropped. Other lines pass through.
func goTestJSONOutput(line []byte) ([]byte, bool) {
	if !hasPrefix(line, `{"Time":`) && !hasPrefix(line, `{"Action":`) && !hasPrefix(line, `{"ImportPath":`) {
		return line, true
	}
	var ev struct {
		Action string
		Output *string
	}
	if json.Unmarshal(line, &ev) != nil || ev.Action == "" {
		return line, true
	}
	if ev.Output == nil {
		return nil, false
	}
	return []byte(strings.TrimRight(*ev.Output, "\n")), true
}

type tailLine struct {
	n    int
	text string
}

// tail keeps the last lines of an output plus the error sections it saw,
// all bounded, whatever the command prints. The last lines are a ring of
// buffers reused line after line, so a flood of output allocates nothing
// per line; only a section's lines are copied out.
type tail struct {
	partial  []byte
	ring     [tailLines]ringLine
	rlen     int // lines in ring
	rnext    int // the slot the next line goes to
	sections [][]tailLine
	open     int // lines still to add to the newest section
	n        int
	// last is when output last arrived: a timeout's reason tells a
	// command still printing (slow, or a busy machine) from a silent one
	// (a hang).
	last time.Time
}

type ringLine struct {
	n int
	b []byte
}

// write feeds raw output; it returns the complete lines it saw, with noise
// removed, for the live output stream.
func (t *tail) write(p []byte) string { return string(t.feed(nil, p)) }

// feed is write appending those lines to dst (the pending live output).
func (t *tail) feed(dst, p []byte) []byte {
	if len(p) > 0 {
		t.last = time.Now()
	}
	for len(p) > 0 {
		i := indexByte(p, '\n')
		if i < 0 {
			if len(t.partial) < partialCap {
				room := partialCap - len(t.partial)
				if room > len(p) {
					room = len(p)
				}
				t.partial = append(t.partial, p[:room]...)
			}
			break
		}
		line := p[:i]
		if len(t.partial) > 0 {
			t.partial = append(t.partial, line...)
			line = t.partial
		}
		p = p[i+1:]
		if s, ok := t.line(line); ok {
			dst = append(append(dst, s...), '\n')
		}
		t.partial = t.partial[:0]
	}
	return dst
}

func indexByte(p []byte, c byte) int { return bytes.IndexByte(p, c) }

// flush ends a final line that had no newline.
func (t *tail) flush() string {
	if len(t.partial) == 0 {
		return ""
	}
	s, ok := t.line(t.partial)
	t.partial = t.partial[:0]
	if !ok {
		return ""
	}
	return string(s)
}

// line takes one line (raw may be reused once it returns) and returns the
// text of it the live output shows.
func (t *tail) line(raw []byte) ([]byte, bool) {
	raw, ok := goTestJSONOutput(raw)
	if !ok {
		return nil, false
	}
	s := bytes.TrimRight(stripANSIBytes(raw), "\r")
	if bytes.Contains(s, []byte("Blocking waiting")) && noise.Match(s) {
		return nil, false
	}
	t.n++
	slot := &t.ring[t.rnext]
	slot.n = t.n
	if len(s) > lineCap {
		slot.b = append(append(slot.b[:0], s[:lineCap]...), "…"...)
	} else {
		slot.b = append(slot.b[:0], s...)
	}
	switch {
	case opensSection(slot.b):
		// The two lines before it are the ring's newest (the ring holds
		// far more than sectionContext).
		var sec []tailLine
		for k := min(sectionContext, t.rlen); k >= 1; k-- {
			r := &t.ring[(t.rnext-k+tailLines)%tailLines]
			sec = append(sec, tailLine{r.n, string(r.b)})
		}
		sec = append(sec, tailLine{slot.n, string(slot.b)})
		if len(t.sections) < sectionMax {
			t.sections = append(t.sections, sec)
		} else {
			// Keep the first sections (the first failure is usually the
			// cause) and the most recent one.
			t.sections[sectionMax-1] = sec
		}
		t.open = sectionLines - len(sec)
	case t.open > 0:
		last := len(t.sections) - 1
		t.sections[last] = append(t.sections[last], tailLine{slot.n, string(slot.b)})
		t.open--
	}
	t.rnext = (t.rnext + 1) % tailLines
	t.rlen = min(t.rlen+1, tailLines)
	return raw, true
}

// lines is the ring's lines, oldest first.
func (t *tail) lines() []tailLine {
	out := make([]tailLine, 0, t.rlen)
	for k := t.rlen; k >= 1; k-- {
		r := &t.ring[(t.rnext-k+tailLines)%tailLines]
		out = append(out, tailLine{r.n, string(r.b)})
	}
	return out
}

// String renders the error sections that scrolled out of the tail, then
// the tail itself.
func (t *tail) String() string {
	ring := t.lines()
	first := t.n + 1
	if len(ring) > 0 {
		first = ring[0].n
	}
	var b strings.Builder
	last := 0
	for _, sec := range t.sections {
		for _, l := range sec {
			if l.n >= first || l.n <= last {
				continue
			}
			if last != 0 && l.n != last+1 {
				b.WriteString("…\n")
			}
			b.WriteString(l.text)
			b.WriteByte('\n')
			last = l.n
		}
	}
	if last != 0 && len(ring) > 0 && ring[0].n != last+1 {
		b.WriteString("…\n")
	}
	for _, l := range ring {
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	if len(t.partial) > 0 {
		b.WriteString(stripANSI(string(t.partial)))
		b.WriteByte('\n')
	}
	return b.String()
}
