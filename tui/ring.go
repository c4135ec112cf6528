package tui

import "strings"

// ringCap is how many output lines a hypothesis keeps for its column. A
// column is never taller than the screen, so older lines are only memory.
const ringCap = 200

// maxLineBytes bounds one stored line: a program printing a megabyte with
// no newline must not make the column's work grow with it.
const maxLineBytes = 4096

// ring holds the last lines of a hypothesis's output plus the unfinished
// line after the last newline. Memory is bounded whatever the output rate.
type ring struct {
	lines   [ringCap]string
	start   int // index of the oldest line
	n       int // lines held
	partial string
	total   int64 // complete lines ever seen
	// cls caches whether each held line names a failure (isFailureLine):
	// 0 not looked at yet, 1 no, 2 yes. A held line never changes, so each
	// is classified once, not at every frame.
	cls [ringCap]uint8
}

// write adds a chunk of output. Only the lines that can still be shown are
// looked at: a 64 KiB chunk of short lines costs a backwards scan of the
// last ringCap lines, not a split of the whole chunk.
func (r *ring) write(text string) {
	if text == "" {
		return
	}
	r.total += int64(strings.Count(text, "\n"))
	last := strings.LastIndexByte(text, '\n')
	if last < 0 {
		r.partial = clipLine(r.partial + text)
		return
	}
	complete, rest := text[:last], text[last+1:]
	// Find the start of the last ringCap complete lines of the chunk.
	from, kept := len(complete), 0
	for kept < ringCap {
		i := strings.LastIndexByte(complete[:from], '\n')
		kept++
		if i < 0 {
			from = -1
			break
		}
		from = i
	}
	var tail []string
	if from < 0 {
		// The whole chunk fits: its first line continues the partial one.
		tail = strings.Split(complete, "\n")
		tail[0] = r.partial + tail[0]
	} else {
		tail = strings.Split(complete[from+1:], "\n")
	}
	for _, l := range tail {
		r.push(clipLine(l))
	}
	r.partial = clipLine(rest)
}

func (r *ring) push(l string) {
	if r.n < ringCap {
		r.lines[(r.start+r.n)%ringCap] = l
		r.cls[(r.start+r.n)%ringCap] = 0
		r.n++
		return
	}
	r.lines[r.start] = l
	r.cls[r.start] = 0
	r.start = (r.start + 1) % ringCap
}

// last returns up to n of the newest lines, oldest first, including the
// unfinished one when it has text.
func (r *ring) last(n int) []string {
	if n <= 0 {
		return nil
	}
	var out []string
	extra := 0
	if r.partial != "" {
		extra = 1
	}
	k := min(r.n, n-extra)
	for i := r.n - k; i < r.n; i++ {
		out = append(out, r.lines[(r.start+i)%ringCap])
	}
	if extra == 1 {
		out = append(out, r.partial)
	}
	return out
}

func clipLine(s string) string {
	if len(s) > maxLineBytes {
		return s[len(s)-maxLineBytes:]
	}
	return s
}

// failures reports, for the lines last(n) returns, which name a failure.
func (r *ring) failures(n int) []bool {
	if n <= 0 {
		return nil
	}
	extra := 0
	if r.partial != "" {
		extra = 1
	}
	k := min(r.n, n-extra)
	out := make([]bool, 0, k+extra)
	for i := r.n - k; i < r.n; i++ {
		j := (r.start + i) % ringCap
		if r.cls[j] == 0 {
			r.cls[j] = 1
			if isFailureLine(r.lines[j]) {
				r.cls[j] = 2
			}
		}
		out = append(out, r.cls[j] == 2)
	}
	if extra == 1 {
		out = append(out, isFailureLine(r.partial))
	}
	return out
}
