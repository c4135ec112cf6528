package engine

import (
	"bytes"
	"fmt"
	"os"
	"sort"
)

// DefaultMaxOutput bounds each hypothesis's stored output log
// (--max-output).
const DefaultMaxOutput int64 = 16 << 20

// Line bytes kept of one line in an error section: a minified bundle
// printed in a stack trace must not fill the section budget alone.
const sectionLineKeep = 4 << 10

// cappedLog is a hypothesis's output log, at most max bytes plus drop
// markers, whatever the command prints, in bounded memory:
//
//   - the output is written as it comes while it fits (an output of at
//     most max bytes is stored whole, byte for byte);
//   - meanwhile it keeps in memory the last max/4 bytes (the tail) and the
//     error sections (engine/tail.go's errorStart: compiler errors, panics,
//     failing tests, each with two lines of context and the 25 after it)
//     found after the first max/2 bytes, at most max/4 bytes of them;
//   - when the output turned out larger than max, close cuts the file to
//     its first max/2 bytes (the head) and appends the sections and the
//     tail, each gap replaced by a marker saying how many bytes were
//     dropped there.
//
// So memory is at most max/2 bytes per hypothesis and the file never
// grows past max while the command runs. The first write error (a full
// filesystem) is kept and reported; the log is then incomplete.
type cappedLog struct {
	f    *os.File
	max  int64
	head int64 // bytes of head kept when cutting
	tail int64 // bytes of tail kept in memory

	total   int64 // bytes seen
	written int64 // bytes in the file (while not cut: the first bytes of the output)
	err     error

	ring      []byte // the last bytes seen, at most tail, a circular buffer once full
	rpos      int    // where the next byte goes in a full ring (its oldest byte)
	full      bool
	lineStart int64  // offset of the line being read
	line      []byte // its first sectionLineKeep bytes
	ctx       []chunk
	open      int     // lines still to add to the current section
	sections  []chunk // kept section lines, in order
	sectBytes int64
	sectFull  bool // the section budget ran out: later sections are dropped
}

// chunk is the stored bytes of the output range [start, end); b may be
// shorter than the range (a long line cut).
type chunk struct {
	start, end int64
	b          []byte
}

func newCappedLog(f *os.File, max int64) *cappedLog {
	if max <= 0 {
		max = DefaultMaxOutput
	}
	max = maxI64(max, 4<<10) // room for a head, a tail and a marker
	return &cappedLog{f: f, max: max, head: max / 2, tail: max / 4}
}

func (c *cappedLog) Write(p []byte) {
	if c.f != nil && c.err == nil && c.written < c.max {
		n := int64(len(p))
		if room := c.max - c.written; n > room {
			n = room
		}
		w, err := c.f.Write(p[:n])
		c.written += int64(w)
		if err != nil {
			c.err = err
			c.giveBack()
		}
	}
	// Bytes before max-tail can never be in the tail of an output larger
	// than max (the only one cut): they are in the file, not the ring.
	if from := c.max - c.tail - c.total; from < int64(len(p)) {
		c.keepTail(p[max(from, 0):])
	}
	c.scan(p)
	c.total += int64(len(p))
}

// giveBack, after a write error (a full filesystem), cuts the log's
// last 64 KiB, so the run's report and integrity record still fit beside
// it, and ends the log with a line saying why it stops there.
func (c *cappedLog) giveBack() {
	keep := max(c.written-64<<10, 0)
	if c.f.Truncate(keep) != nil {
		return
	}
	if _, err := c.f.Seek(keep, 0); err != nil {
		return
	}
	c.written = keep
	msg := fmt.Sprintf("\n[shadow: the output log stops here: %v; the command printed more]\n", c.err)
	if n, _ := c.f.Write([]byte(msg)); n > 0 {
		c.written += int64(n)
	}
	c.written = c.max // nothing more is written
}

func (c *cappedLog) keepTail(p []byte) {
	if !c.full {
		room := int(c.tail) - len(c.ring)
		if len(p) <= room {
			c.ring = append(c.ring, p...)
			return
		}
		c.ring = append(c.ring, p[:room]...)
		p = p[room:]
		c.full, c.rpos = true, 0
	}
	if len(p) >= len(c.ring) {
		copy(c.ring, p[len(p)-len(c.ring):])
		c.rpos = 0
		return
	}
	n := copy(c.ring[c.rpos:], p)
	copy(c.ring, p[n:])
	c.rpos = (c.rpos + len(p)) % len(c.ring)
}

// tailBytes is the ring's content, oldest first.
func (c *cappedLog) tailBytes() []byte {
	if !c.full {
		return c.ring
	}
	return append(append([]byte{}, c.ring[c.rpos:]...), c.ring[:c.rpos]...)
}

// scan splits the output into lines, for the error sections.
func (c *cappedLog) scan(p []byte) {
	off := c.total
	if off+int64(len(p)) < c.head {
		// Lines of the head are kept anyway: only where the last one
		// starts matters.
		if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
			c.lineStart, c.line = off+int64(i+1), c.line[:0]
			p = p[i+1:]
			off = c.lineStart
		}
		if room := sectionLineKeep - len(c.line); room > 0 {
			c.line = append(c.line, p[:min(room, len(p))]...)
		}
		return
	}
	for len(p) > 0 {
		i := indexByte(p, '\n')
		end := len(p)
		if i >= 0 {
			end = i + 1
		}
		if room := sectionLineKeep - len(c.line); room > 0 {
			c.line = append(c.line, p[:min(room, end)]...)
		}
		off += int64(end)
		p = p[end:]
		if i >= 0 {
			c.line = c.endLine(chunk{start: c.lineStart, end: off, b: c.line})
			c.lineStart, c.line = off, c.line[:0]
		}
	}
}

// endLine takes one line of the output after the head; l.b is a buffer
// reused for the next line (returned, it may have grown), so what is kept
// of it is copied.
func (c *cappedLog) endLine(l chunk) []byte {
	if l.start < c.head { // in the head, kept anyway
		return l.b
	}
	if len(l.b) > 0 && l.b[len(l.b)-1] != '\n' {
		l.b = append(l.b, "…\n"...)
	}
	switch {
	case !c.sectFull && opensSection(stripANSIBytes(l.b)):
		for _, x := range c.ctx {
			c.keepSection(x)
		}
		c.keepSection(l)
		c.open = sectionLines - len(c.ctx) - 1
	case c.open > 0:
		c.keepSection(l)
		c.open--
	}
	// The context is the last sectionContext lines, each in a buffer of
	// its own, reused as they scroll out.
	if len(c.ctx) < sectionContext {
		c.ctx = append(c.ctx, chunk{l.start, l.end, append([]byte(nil), l.b...)})
	} else {
		old := c.ctx[0].b
		copy(c.ctx, c.ctx[1:])
		c.ctx[len(c.ctx)-1] = chunk{l.start, l.end, append(old[:0], l.b...)}
	}
	return l.b
}

func (c *cappedLog) keepSection(l chunk) {
	if n := len(c.sections); n > 0 && c.sections[n-1].start >= l.start {
		return // already kept (context of a section right after another)
	}
	if c.sectBytes+int64(len(l.b)) > c.max/4 {
		c.sectFull, c.open = true, 0
		return
	}
	l.b = append([]byte(nil), l.b...)
	c.sections = append(c.sections, l)
	c.sectBytes += int64(len(l.b))
}

// close finishes the file: when the output was larger than max, the file
// is cut to head, error sections and tail. It returns the first error met.
func (c *cappedLog) close() error {
	if c.f == nil {
		return nil
	}
	defer c.f.Close()
	if c.total > c.max && c.err == nil {
		c.err = c.cut()
	}
	if err := c.f.Sync(); err != nil && c.err == nil {
		c.err = err
	}
	if err := c.f.Close(); err != nil && c.err == nil {
		c.err = err
	}
	return c.err
}

func (c *cappedLog) cut() error {
	if err := c.f.Truncate(c.head); err != nil {
		return err
	}
	if _, err := c.f.Seek(c.head, 0); err != nil {
		return err
	}
	ring := c.tailBytes()
	tailStart := c.total - int64(len(ring))
	// The tail starts at a line's start, unless that line is longer than
	// the tail itself.
	if i := indexByte(ring, '\n'); i >= 0 && i+1 < len(ring) {
		tailStart += int64(i + 1)
		ring = ring[i+1:]
	}
	sort.Slice(c.sections, func(i, j int) bool { return c.sections[i].start < c.sections[j].start })
	var buf []byte
	cursor := c.head
	for _, s := range c.sections {
		if s.start < cursor || s.end > tailStart {
			continue
		}
		if s.start > cursor {
			buf = append(buf, dropMarker(s.start-cursor, c.max)...)
		}
		buf = append(buf, s.b...)
		cursor = s.end
	}
	if tailStart > cursor {
		buf = append(buf, dropMarker(tailStart-cursor, c.max)...)
	}
	buf = append(buf, ring...)
	_, err := c.f.Write(buf)
	return err
}

// dropMarker stands in the log for n bytes of output left out.
func dropMarker(n, max int64) string {
	return fmt.Sprintf("\n[shadow: %d bytes of output dropped here (--max-output %s keeps the head, every error section and the tail)]\n", n, FormatSize(max))
}

func maxI64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
