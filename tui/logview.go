package tui

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// A hypothesis's full output can be gigabytes. The output view never
// holds it: a tea.Cmd indexes where each line starts (8 bytes a line) in
// the last logLimit bytes of the file, and the view reads the window of
// lines it shows, and search scans the file a window at a time, from
// disk, in tea.Cmds.

// logLimit is how much of the end of a log the output view covers.
const logLimit = 64 << 20

// logWindow is how many lines one read brings into the view.
const logWindow = 1024

// logIndex is where each line of a log starts. It is not changed after
// indexLog returns, so Cmds may read it while Update holds it.
type logIndex struct {
	path   string
	starts []int64 // offset of each line's first byte
	end    int64   // offset just past the last indexed line
	cut    bool    // output before the first line was left out
	first  int     // the first line that starts an error section, -1 none
}

func (x *logIndex) lines() int { return len(x.starts) }

// indexLog reads through the end of a log once, noting line starts and
// the first error section (the only time every byte is looked at).
func indexLog(path string) (*logIndex, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	x := &logIndex{path: path, first: -1}
	off := int64(0)
	if fi.Size() > logLimit {
		off, x.cut = fi.Size()-logLimit, true
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	if x.cut { // start at a whole line
		skipped, err := r.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			off += int64(len(skipped))
			skipped, err = r.ReadSlice('\n')
		}
		off += int64(len(skipped))
	}
	for {
		chunk, err := r.ReadSlice('\n')
		long := errors.Is(err, bufio.ErrBufferFull)
		if len(chunk) > 0 {
			x.starts = append(x.starts, off)
			if x.first < 0 && isErrorSection(sanitize(strings.TrimRight(string(chunk), "\r\n"), false)) {
				x.first = len(x.starts) - 1
			}
		}
		off += int64(len(chunk))
		for long { // a line longer than the buffer: one line still
			chunk, err = r.ReadSlice('\n')
			long = errors.Is(err, bufio.ErrBufferFull)
			off += int64(len(chunk))
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				x.end = off
				return x, nil
			}
			return nil, err
		}
	}
}

// read returns lines [from, from+n), sanitized for the screen (colours
// kept when color), each cut to maxLineBytes.
func (x *logIndex) read(from, n int, color bool) ([]string, error) {
	from = clamp(from, 0, x.lines())
	to := min(from+n, x.lines())
	if from >= to {
		return nil, nil
	}
	f, err := os.Open(x.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	end := x.end
	if to < x.lines() {
		end = x.starts[to]
	}
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		lend := end
		if i+1 < to {
			lend = x.starts[i+1]
		}
		size := min(lend-x.starts[i], maxLineBytes)
		b := make([]byte, size)
		if _, err := f.ReadAt(b, x.starts[i]); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		b = bytes.TrimRight(b, "\r\n")
		out = append(out, sanitize(string(b), color))
	}
	return out, nil
}

// search finds the next line holding q from line from in direction dir,
// wrapping around, reading logWindow lines at a time: -1 when none does.
func (x *logIndex) search(q string, from, dir int) (int, error) {
	n := x.lines()
	if n == 0 || q == "" {
		return -1, nil
	}
	from = clamp(from, 0, n-1)
	for k := 0; k < n; {
		// The window holding the next lines to look at, in direction dir.
		i := ((from+dir*k)%n + n) % n
		lo, hi := i, min(i+logWindow, n)
		if dir < 0 {
			lo, hi = max(i-logWindow+1, 0), i+1
		}
		lines, err := x.read(lo, hi-lo, false)
		if err != nil {
			return -1, err
		}
		for j := range lines {
			jj := j
			if dir < 0 {
				jj = len(lines) - 1 - j
			}
			if matchIndex(lines[jj], q) >= 0 {
				return lo + jj, nil
			}
			k++
			if k >= n {
				break
			}
		}
	}
	return -1, nil
}

// Messages of the output view: each names the log it is about, so an
// answer for a view closed or reopened since is dropped.

type logIndexMsg struct {
	hyp string
	idx *logIndex
	err error
}

type logWindowMsg struct {
	path  string
	from  int
	lines []string
	err   error
}

type logSearchMsg struct {
	path  string
	query string
	line  int
	err   error
}

func indexLogCmd(hyp, path string) tea.Cmd {
	return func() tea.Msg {
		x, err := indexLog(path)
		return logIndexMsg{hyp: hyp, idx: x, err: err}
	}
}

func readWindowCmd(x *logIndex, from int, color bool) tea.Cmd {
	return func() tea.Msg {
		lines, err := x.read(from, logWindow, color)
		return logWindowMsg{path: x.path, from: from, lines: lines, err: err}
	}
}

func searchLogCmd(x *logIndex, q string, from, dir int) tea.Cmd {
	return func() tea.Msg {
		i, err := x.search(q, from, dir)
		return logSearchMsg{path: x.path, query: q, line: i, err: err}
	}
}
