package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/shadow-dev/shadow/internal/run"
)

// ExitCode is the one place what a command ended with becomes shadow's
// exit code (docs/cli.md, "Exit codes"): main exits with it and the tests
// check it, so the two cannot drift. Where the command has not already
// said why (an ExitError has), it writes the line for people on stderr:
// the refusal with its fix, a command-line mistake with the help to read.
//
//	nil                        0  a winner (or the command did what was asked)
//	*ExitError                 its Code (1: none passed; 3: gc could not remove all)
//	*ArgError                  2  a mistake in the command line, nothing ran
//	*run.Error                 its Code (2: usage or spec; 3: environment)
//	context.Canceled           130 interrupted (SIGINT/SIGTERM)
//	anything else              3  the environment failed in a way not foreseen
func ExitCode(err error, stderr io.Writer) int {
	if stderr == nil {
		stderr = io.Discard
	}
	var ee *ExitError
	var re *run.Error
	var ae *ArgError
	switch {
	case err == nil:
		return run.ExitWinner
	case errors.As(err, &ee):
		return ee.Code
	case errors.As(err, &ae):
		fmt.Fprintf(stderr, "shadow: %s\n%s\n", ae.Msg, ae.Hint())
		return run.ExitUsage
	case errors.As(err, &re):
		fmt.Fprintln(stderr, "shadow:", re)
		return re.Code
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "shadow: interrupted")
		return run.ExitInterrupted
	}
	fmt.Fprintln(stderr, "shadow:", err)
	return run.ExitEnv
}
