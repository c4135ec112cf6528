package engine

import (
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
// errorStart runs (a regexp per line is most of the cost of a flood of
// output): every alternative of errorStart starts with one of these
// bytes, holds a "●", or is a "file.go:12: error"-style line.
func mayOpenSection(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '-', 'p', 'f', 'e', 't', 'T', '=', 'F', 'E', 'A', 'n':
		return true
	}
	if strings.Contains(s, "●") {
		return true
	}
	if !strings.Contains(s, ": ") {
		return false
	}
	for _, w := range []string{": error", ": undefined", ": cannot", ": syntax error", ": expected"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// opensSection reports whether the line s opens an error section.
func opensSection(s string) bool { return mayOpenSection(s) && errorStart.MatchString(s) }

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

// goTestJSONOutput turns a `go test -json` event into the text it carries,
// so tails and live output read like plain go test; events without output
// are dropped. Other lines pass through.
func goTestJSONOutput(line string) (string, bool) {
	if !strings.HasPrefix(line, `{"Time":`) && !strings.HasPrefix(line, `{"Action":`) && !strings.HasPrefix(line, `{"ImportPath":`) {
		return line, true
	}
	var ev struct {
		Action string
		Output *string
	}
	if json.Unmarshal([]byte(line), &ev) != nil || ev.Action == "" {
		return line, true
	}
	if ev.Output == nil {
		return "", false
	}
	return strings.TrimRight(*ev.Output, "\n"), true
}

type tailLine struct {
	n    int
	text string
}

// tail keeps the last lines of an output plus the error sections it saw,
// all bounded, whatever the command prints.
type tail struct {
	partial  []byte
	ring     []tailLine
	sections [][]tailLine
	open     int // lines still to add to the newest section
	prev     []tailLine
	n        int
	// last is when output last arrived: a timeout's reason tells a
	// command still printing (slow, or a busy machine) from a silent one
	// (a hang).
	last time.Time
}

// write feeds raw output; it returns the complete lines it saw, with noise
// removed, for the live output stream.
func (t *tail) write(p []byte) string {
	if len(p) > 0 {
		t.last = time.Now()
	}
	var kept strings.Builder
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
		line := append(t.partial, p[:i]...)
		t.partial = t.partial[:0]
		p = p[i+1:]
		if s, ok := t.line(string(line)); ok {
			kept.WriteString(s)
			kept.WriteByte('\n')
		}
	}
	return kept.String()
}

func indexByte(p []byte, c byte) int {
	for i, b := range p {
		if b == c {
			return i
		}
	}
	return -1
}

// flush ends a final line that had no newline.
func (t *tail) flush() string {
	if len(t.partial) == 0 {
		return ""
	}
	s, ok := t.line(string(t.partial))
	t.partial = t.partial[:0]
	if !ok {
		return ""
	}
	return s
}

func (t *tail) line(raw string) (string, bool) {
	raw, ok := goTestJSONOutput(raw)
	if !ok {
		return "", false
	}
	s := strings.TrimRight(stripANSI(raw), "\r")
	if strings.Contains(s, "Blocking waiting") && noise.MatchString(s) {
		return "", false
	}
	if len(s) > lineCap {
		s = s[:lineCap] + "…"
	}
	t.n++
	l := tailLine{t.n, s}
	switch {
	case opensSection(s):
		sec := append(append([]tailLine{}, t.prev...), l)
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
		t.sections[last] = append(t.sections[last], l)
		t.open--
	}
	t.prev = append(t.prev, l)
	if len(t.prev) > sectionContext {
		t.prev = t.prev[1:]
	}
	t.ring = append(t.ring, l)
	if len(t.ring) > tailLines {
		t.ring = t.ring[1:]
	}
	return raw, true
}

// String renders the error sections that scrolled out of the tail, then
// the tail itself.
func (t *tail) String() string {
	first := t.n + 1
	if len(t.ring) > 0 {
		first = t.ring[0].n
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
	if last != 0 && len(t.ring) > 0 && t.ring[0].n != last+1 {
		b.WriteString("…\n")
	}
	for _, l := range t.ring {
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	if len(t.partial) > 0 {
		b.WriteString(stripANSI(string(t.partial)))
		b.WriteByte('\n')
	}
	return b.String()
}
