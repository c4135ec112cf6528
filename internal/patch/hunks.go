package patch

import (
	"fmt"
	"strings"
)

// apply places the section's hunks in content and returns the file's new
// state. Placement is shadow's, not go-gitdiff's (whose apply wants every
// hunk at its stated line): like patch with fuzz 0, a hunk's old lines must
// match exactly, but may sit at another line than stated, nearest first.
// Lines keep their terminators ("\n", "\r\n", or none after a "\ No newline
// at end of file" marker), so comparisons and the result are byte-exact.
func (s *section) apply(content []byte, exists bool) (*Change, error) {
	if s.create && exists {
		return nil, fmt.Errorf("patch creates %s, but it already exists", s.path)
	}
	if !s.create && !exists && !s.onlyAdds() {
		return nil, fmt.Errorf("patch changes %s, but it does not exist", s.path)
	}
	lines := splitLines(string(content))
	var out []string
	cursor, offset := 0, 0
	for n, h := range s.hunks {
		var old, neu []string
		for _, l := range h.Lines {
			if l.Old() {
				old = append(old, l.Line)
			}
			if l.New() {
				neu = append(neu, l.Line)
			}
		}
		want := int(h.OldPosition) - 1 // 0-based first old line
		if h.OldLines == 0 {
			want = int(h.OldPosition) // "-k,0" inserts after line k
		}
		pos := findHunk(lines, old, want+offset, cursor)
		if pos < 0 {
			return nil, &ConflictError{File: s.name(), Hunk: n + 1, Line: int(h.OldPosition)}
		}
		offset = pos - want
		out = append(out, lines[cursor:pos]...)
		out = append(out, neu...)
		cursor = pos + len(old)
	}
	out = append(out, lines[cursor:]...)
	result := []byte(strings.Join(out, ""))
	if s.delete {
		if len(result) != 0 {
			return nil, fmt.Errorf("patch does not apply: %s is deleted but %d line(s) would remain", s.path, len(out))
		}
		return &Change{Path: s.path, Deleted: true}, nil
	}
	if result == nil {
		result = []byte{}
	}
	return &Change{Path: s.path, Content: result, Mode: s.mode}, nil
}

// name is the section's path for messages, with the source of a rename or
// copy, whose content the hunks apply to.
func (s *section) name() string {
	switch {
	case s.from == "":
		return s.path
	case s.rename:
		return s.path + " (renamed from " + s.from + ")"
	}
	return s.path + " (copied from " + s.from + ")"
}

// onlyAdds reports whether every hunk starts from an empty old side, as
// `diff -N` prints a new file under its own name instead of /dev/null.
func (s *section) onlyAdds() bool {
	for _, h := range s.hunks {
		if h.OldLines != 0 {
			return false
		}
	}
	return len(s.hunks) > 0
}

// splitLines splits s into lines that keep their "\n"; the last one may
// lack it, and an empty s has none.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// findHunk returns where old occurs in lines at or after min, nearest to
// want (the stated line plus the previous hunk's offset), or -1. Like patch
// with fuzz 0: context must match exactly, only the position may move.
func findHunk(lines, old []string, want, min int) int {
	last := len(lines) - len(old) // highest possible start
	if want < min {
		want = min
	}
	if want > last {
		want = last
	}
	matches := func(p int) bool {
		if p < min || p > last {
			return false
		}
		for i, l := range old {
			if lines[p+i] != l {
				return false
			}
		}
		return true
	}
	for d := 0; want-d >= min || want+d <= last; d++ {
		if matches(want + d) {
			return want + d
		}
		if d > 0 && matches(want-d) {
			return want - d
		}
	}
	return -1
}
