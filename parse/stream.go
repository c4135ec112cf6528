package parse

import (
	"strconv"
	"strings"
)

// MaxLine caps the bytes kept of one output line. A runner that prints a
// multi-megabyte line (a minified bundle, a giant assertion diff) must not make
// the parser hold it; the first MaxLine bytes are matched and the rest of that
// line is dropped. No summary line of any runner comes near this.
const MaxLine = 64 << 10

// Stream parses test-runner output as it is written, in any chunking (partial
// lines are held until their newline), with memory bounded per line. Every
// known runner's reader sees every line; each decides for itself whether the
// line is one of its own, so a command that runs several suites (a Makefile
// running go test then pytest) is summed, and the runner is detected from the
// output, not from the command, which is only a hint.
//
// A Stream is not safe for concurrent use: Write, Live and Final are meant to
// be called from the one goroutine that copies the command's output.
type Stream struct {
	hint    []string
	readers []reader
	order   []reader // readers in the order they first recognised a line
	frame   string   // cached "+"-joined framework names of order
	buf     []byte   // the current partial line (at most MaxLine bytes)
	over    bool     // the current line passed MaxLine: drop until its newline
	cr      bool     // the last byte seen was '\r': a '\n' right after it ends nothing
	done    bool
}

// reader is one runner's line parser. line gets each output line with ANSI
// escapes removed and no line terminator.
type reader interface {
	framework() string
	line(s string)
	recognised() bool
	live() counts
	final() *Summary // nil when the runner was not recognised
}

type counts struct{ passed, failed, skipped int }

func (c *counts) add(o counts) {
	c.passed += o.passed
	c.failed += o.failed
	c.skipped += o.skipped
}

// NewStream returns a Stream. commandHint is the command being run. Detection
// does not use it (real commands are wrapped: make test, npm test,
// sh -c '...', tox; the output is what tells the runner); it is kept so a
// later reader may use it to break a tie, without an API change.
func NewStream(commandHint []string) *Stream {
	s := &Stream{hint: commandHint}
	s.readers = []reader{
		newGoTest(), newCargo(), newNextest(), newPytest(), newUnittest(),
		newVitest(), newJest(), newBun(), newNode(),
		newXCTest(), newSwiftTesting(), newCTest(), newMeson(), newPlain(),
	}
	return s
}

// Write feeds output. It never fails, so a Stream can sit in an io.MultiWriter
// next to the log file without ever stopping the copy.
func (s *Stream) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if s.cr && p[0] == '\n' { // the second half of a "\r\n" split across writes
			p = p[1:]
			s.cr = false
			continue
		}
		s.cr = false
		i := indexEOL(p)
		if i < 0 {
			s.keep(p)
			break
		}
		s.keep(p[:i])
		s.cr = p[i] == '\r'
		p = p[i+1:]
		if s.cr && len(p) > 0 && p[0] == '\n' {
			p = p[1:]
			s.cr = false
		}
		s.flush()
	}
	return n, nil
}

// indexEOL finds the next '\n' or '\r'. A lone '\r' ends a line too: progress
// bars redraw with it, and the text after it is what a terminal would show.
func indexEOL(p []byte) int {
	for i, c := range p {
		if c == '\n' || c == '\r' {
			return i
		}
	}
	return -1
}

func (s *Stream) keep(p []byte) {
	if s.over {
		return
	}
	if room := MaxLine - len(s.buf); len(p) > room {
		p = p[:room]
		s.over = true
	}
	s.buf = append(s.buf, p...)
}

func (s *Stream) flush() {
	line := string(stripANSI(s.buf))
	s.buf = s.buf[:0]
	s.over = false
	if cap(s.buf) > 4*4096 { // do not keep one huge line's buffer for the rest of the run
		s.buf = nil
	}
	for _, r := range s.readers {
		was := r.recognised()
		r.line(line)
		if !was && r.recognised() {
			s.order = append(s.order, r)
			s.frame = ""
		}
	}
}

// Live returns the counts so far, for a live display: nil until a runner was
// recognised. It carries no test names (Final does) and is cheap: a sum over
// the recognised runners.
func (s *Stream) Live() *Summary {
	if len(s.order) == 0 {
		return nil
	}
	var c counts
	for _, r := range s.order {
		c.add(r.live())
	}
	return &Summary{Framework: s.frameworks(), Passed: max(c.passed, 0), Failed: max(c.failed, 0), Skipped: max(c.skipped, 0)}
}

func (s *Stream) frameworks() string {
	if s.frame == "" {
		names := make([]string, 0, len(s.order))
		for _, r := range s.order {
			names = append(names, r.framework())
		}
		s.frame = strings.Join(names, "+")
	}
	return s.frame
}

// Final ends the output (a last line without newline is read) and returns the
// summary: per runner, its own summary lines where it printed them, else what
// its per-test lines counted; several runners are summed and their names
// joined with "+". Nil when no runner was recognised: never invented zeros.
// Calling it again returns the same; writing after it is not supported.
func (s *Stream) Final() *Summary {
	if !s.done {
		s.done = true
		if len(s.buf) > 0 || s.over {
			s.flush()
		}
	}
	var out *Summary
	var failed, passed names
	var frames []string
	var suites []Summary
	units := map[string]bool{}
	for _, r := range s.order {
		f := r.final()
		if f == nil {
			continue
		}
		if out == nil {
			out = &Summary{}
		}
		frames = append(frames, f.Framework)
		suites = append(suites, *f)
		units[f.Unit] = true
		out.Deselected += f.Deselected
		out.Passed += max(f.Passed, 0)
		out.Failed += max(f.Failed, 0)
		out.Skipped += max(f.Skipped, 0)
		for _, n := range f.FailedTests {
			failed.add(n)
		}
		for _, n := range f.PassedTests {
			passed.add(n)
		}
	}
	if out == nil {
		return nil
	}
	out.Framework = strings.Join(frames, "+")
	if len(suites) > 1 {
		out.Suites = suites
	}
	// Counts of packages and of tests summed are neither: Unit says
	// "package" only when every runner counted packages.
	if len(units) == 1 {
		out.Unit = frames0Unit(units)
	}
	out.FailedTests = failed.list
	// A test that failed once and passed once (a teardown error after a pass,
	// a retry) is reported failed only, so fixed/broken see one outcome.
	for _, n := range passed.list {
		if _, bad := failed.seen[n]; !bad {
			out.PassedTests = append(out.PassedTests, n)
		}
	}
	return out
}

// Parse is NewStream, one Write and Final.
func Parse(output []byte, commandHint []string) *Summary {
	s := NewStream(commandHint)
	s.Write(output)
	return s.Final()
}

// names is an ordered set: in order seen, no duplicates.
type names struct {
	list []string
	seen map[string]struct{}
}

func (n *names) add(s string) {
	if s == "" {
		return
	}
	if n.seen == nil {
		n.seen = map[string]struct{}{}
	}
	if _, ok := n.seen[s]; ok {
		return
	}
	n.seen[s] = struct{}{}
	n.list = append(n.list, s)
}

// tally is the counting every reader shares: per-test lines add to cur as
// they stream (the live counts); a runner's own summary line replaces the
// per-test counts of the section it closes, because the summary is what the
// runner vouches for (it includes tests whose lines we could not read).
// Sections without a summary (a crash, a cut output) keep their live counts.
type tally struct {
	done counts // closed sections
	cur  counts // the open section's per-test counts
	seen bool
	fail names
	pass names
	// broken counts test files that failed to load (vitest's "FAIL file [
	// file ]", jest's "Test suite failed to run"): the runner's own test
	// count leaves them out, but a hypothesis that breaks a test file must not
	// rank above one that fails a test, so each counts as one failed test.
	broken int
}

func (t *tally) live() counts {
	c := t.done
	c.add(t.cur)
	c.failed += t.broken
	return c
}

// brokenFile records a test file that failed to load, once per name.
func (t *tally) brokenFile(name string) {
	t.seen = true
	if _, dup := t.fail.seen[name]; dup {
		return
	}
	t.fail.add(name)
	t.broken++
}

// closeWith ends the open section with the runner's own counts.
func (t *tally) closeWith(c counts) {
	t.done.add(c)
	t.cur = counts{}
	t.seen = true
}

// closeLive ends the open section keeping its live counts (a new section began
// without the previous one printing a summary).
func (t *tally) closeLive() {
	t.done.add(t.cur)
	t.cur = counts{}
}

func (t *tally) summary(fw string) *Summary {
	if !t.seen {
		return nil
	}
	c := t.live()
	return &Summary{Framework: fw, Passed: max(c.passed, 0), Failed: max(c.failed, 0), Skipped: max(c.skipped, 0),
		FailedTests: t.fail.list, PassedTests: t.pass.list}
}

// outcome records one test's result in the live counts and the name lists.
func (t *tally) outcome(name string, o int, count bool) {
	t.seen = true
	switch o {
	case pass:
		if count {
			t.cur.passed++
		}
		t.pass.add(name)
	case fail:
		if count {
			t.cur.failed++
		}
		t.fail.add(name)
	case skip:
		if count {
			t.cur.skipped++
		}
	}
}

const (
	pass = iota
	fail
	skip
)

// atoi reads a non-negative decimal, clamped so absurd input cannot overflow
// into negative counts.
func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		if n > 1e9 {
			return 1e9
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// numWord splits "12 passed" into 12, "passed"; ok is false when s is not a
// number, a space and a word (or words).
func numWord(s string) (int, string, bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexByte(s, ' ')
	if i <= 0 {
		return 0, "", false
	}
	if _, err := strconv.Atoi(s[:i]); err != nil {
		return 0, "", false
	}
	return atoi(s[:i]), strings.TrimSpace(s[i+1:]), true
}

// indent is the number of leading spaces (a tab counts as one).
func indent(s string) int {
	for i, c := range s {
		if c != ' ' && c != '\t' {
			return i
		}
	}
	return len(s)
}

func frames0Unit(units map[string]bool) string {
	for u := range units {
		return u
	}
	return ""
}
