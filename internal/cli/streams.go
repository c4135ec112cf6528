package cli

import (
	"io"
	"os"
	"strings"

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
	// Getenv reads the environment (CI, TERM, NO_COLOR); nil is os.Getenv.
	Getenv func(string) string
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

// inTerminal: stdin is a terminal too (a person could press a key). A
// harness that runs commands under a pseudo-terminal (script(1), an
// agent's PTY tool, expect) often gives stdout a terminal but feeds stdin
// from nowhere; a full-screen program there waits for a q that never comes.
func (s Streams) inTerminal() bool {
	w, ok := s.In.(io.Writer) // *os.File is both
	return ok && s.terminal(w)
}

func (s Streams) getenv(k string) string {
	if s.Getenv != nil {
		return s.Getenv(k)
	}
	return os.Getenv(k)
}

// interactive says whether a person is at a terminal on both ends and
// nothing in the environment says otherwise: CI set to anything but ""
// "false" or "0" (GitHub Actions, GitLab, Buildkite, Jenkins' plugins and
// most harnesses set CI=true), or TERM=dumb (Emacs shells, some agent
// tools) - the rules gh and gotestsum follow before drawing anything
// interactive.
func (s Streams) interactive() bool {
	if !s.terminal(s.Out) || !s.inTerminal() {
		return false
	}
	if ci := strings.ToLower(strings.TrimSpace(s.getenv("CI"))); ci != "" && ci != "false" && ci != "0" {
		return false
	}
	return s.getenv("TERM") != "dumb"
}
