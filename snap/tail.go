package snap

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
)

// EventsPath is the event log of the run recorded in runDir.
func EventsPath(runDir string) string { return filepath.Join(runDir, "events.ndjson") }

// TailFile reads the end of a file (a hypothesis's output log): at most its
// last maxBytes bytes (maxBytes <= 0: the whole file), starting after the
// first newline when the file is larger, so no line is shown cut in half.
// With maxLines > 0 only the last maxLines lines are kept, and the text is
// returned with trailing newlines folded into one ("" for no lines);
// without, the bytes are returned as they are. truncated says that
// something before the text was left out.
func TailFile(path string, maxLines int, maxBytes int64) (text string, truncated bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false, err
	}
	size := fi.Size()
	off := int64(0)
	if maxBytes > 0 && size > maxBytes {
		off = size - maxBytes
	}
	b := make([]byte, size-off)
	n, err := f.ReadAt(b, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", false, err
	}
	b = b[:n]
	cut := off > 0
	if cut {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	if maxLines <= 0 {
		return string(b), cut, nil
	}
	b = bytes.TrimRight(b, "\n")
	if len(b) == 0 {
		return "", cut, nil
	}
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) > maxLines {
		lines, cut = lines[len(lines)-maxLines:], true
	}
	return string(bytes.Join(lines, []byte("\n"))) + "\n", cut, nil
}
