package spec

import (
	"fmt"
	"io"
	"os"

	"github.com/shadow-dev/shadow/internal/bytesize"
)

// DefaultMaxEditSize bounds one edit's content (--max-edit-size): shadow
// holds it in memory, writes it into every sandbox and records it once.
const DefaultMaxEditSize int64 = 64 << 20

// Limits bound what Resolve reads. Zero values mean the defaults.
type Limits struct {
	// MaxEditSize is the largest content one edit may have, whether its
	// source is a "file", "content" or "content_base64".
	MaxEditSize int64
}

func (l Limits) maxEdit() int64 {
	if l.MaxEditSize > 0 {
		return l.MaxEditSize
	}
	return DefaultMaxEditSize
}

func limitsOf(l []Limits) Limits {
	if len(l) > 0 {
		return l[0]
	}
	return Limits{}
}

// EditSourceError says why an edit's "file" cannot be its source.
type EditSourceError struct{ Msg string }

func (e *EditSourceError) Error() string { return e.Msg }

// errTooBig is the refusal of a content over the limit.
func errTooBig(size, max int64) error {
	return &EditSourceError{fmt.Sprintf("%s is larger than the %s limit of one edit (raise it with --max-edit-size)", bytesize.Format(size), bytesize.Format(max))}
}

// readEditSource reads an edit's "file": a regular file of at most max
// bytes, nothing else. A FIFO would block the read forever (no writer),
// /dev/zero would never end, a directory or socket is no file's content:
// the file is opened without blocking (openNoBlock: O_NONBLOCK, so even a
// FIFO's open returns at once), fstat'ed, and refused unless regular and
// small enough; the read goes through a LimitReader, so a file that grows
// after the fstat is refused too, never read whole.
func readEditSource(path string, max int64) ([]byte, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		kind := "not a regular file"
		switch {
		case fi.IsDir():
			kind = "a directory"
		case fi.Mode()&os.ModeNamedPipe != 0:
			kind = "a named pipe (FIFO)"
		case fi.Mode()&os.ModeDevice != 0:
			kind = "a device"
		case fi.Mode()&os.ModeSocket != 0:
			kind = "a socket"
		}
		return nil, &EditSourceError{"it is " + kind + ": an edit's source must be a regular file"}
	}
	if fi.Size() > max {
		return nil, errTooBig(fi.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, errTooBig(int64(len(b)), max)
	}
	return b, nil
}
