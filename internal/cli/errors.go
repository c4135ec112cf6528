package cli

import (
	"fmt"

	"github.com/shadow-dev/shadow/internal/run"
)

// ExitError ends a command with Code once it has said what there was to
// say (a run with no winner: 1; a gc that could not remove everything,
// having named each failure: 3). main prints nothing more for it.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// exit is an ExitError, or nil for 0.
func exit(code int) error {
	if code == 0 {
		return nil
	}
	return &ExitError{Code: code}
}

// ArgError is a mistake in the command line itself (exit 2): nothing ran.
// Unlike a refusal of the spec, it points at the command's help.
type ArgError struct {
	Msg     string
	Command string // the command whose help explains it ("" for the root)
}

func (e *ArgError) Error() string { return e.Msg }

// Hint is where the command's help is.
func (e *ArgError) Hint() string {
	if e.Command == "" {
		return "see `shadow -h`"
	}
	return "see `shadow " + e.Command + " -h`"
}

// usage is a mistake in the command line (exit 2): nothing ran.
func usage(format string, a ...any) error { return &ArgError{Msg: fmt.Sprintf(format, a...)} }

// specErr is a refusal of the spec or of what it names (exit 2).
func specErr(format string, a ...any) error { return run.Usage(format, a...) }

// envErr is an environment failure (exit 3).
func envErr(format string, a ...any) error { return run.Env(format, a...) }
