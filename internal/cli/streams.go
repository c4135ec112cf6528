package cli

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// Streams are what a command reads and writes: the process's own in
// OS(), buffers in tests. The TUI and the MCP server's protocol channel
// need the process's real terminal and file descriptors and use them
// directly; every other output goes through these.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// IsTerminal reports whether w is a terminal (auto mode shows the TUI
	// only on one).
	IsTerminal func(w io.Writer) bool
}

// OS is the process's stdin, stdout and stderr.
func OS() Streams {
	return Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, IsTerminal: isTerminal}
}

// isTerminal is isatty(3) on w's file descriptor (a Cygwin/MSYS pty
// counts too); a w that is not a file is not a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

func (s Streams) terminal(w io.Writer) bool {
	return s.IsTerminal != nil && s.IsTerminal(w)
}
