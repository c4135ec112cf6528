package run

import "fmt"

// Exit codes (docs/cli.md).
const (
	ExitWinner = 0
	ExitNone   = 1
	ExitUsage  = 2
	ExitEnv    = 3
	// ExitInterrupted: the run was interrupted (SIGINT/SIGTERM), whatever
	// had finished by then (128 + SIGINT, as shells report it).
	ExitInterrupted = 130
)

// Error is a refusal: nothing ran and nothing was written. Code is the
// exit code the CLI ends with: ExitUsage for a mistake in the spec, the
// flags or the arguments; ExitEnv when the machine cannot do what was
// asked, with the Reason and, where one is known, the Fix.
type Error struct {
	Code   int
	Msg    string // what was refused, naming the flag, field or path
	Reason string // ExitEnv: why the machine cannot (e.g. the probe's reason)
	Fix    string // ExitEnv: what to do about it
}

func (e *Error) Error() string {
	s := e.Msg
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	if e.Fix != "" {
		s += "\nfix: " + e.Fix
	}
	return s
}

// Usage is a refusal with exit code 2.
func Usage(format string, a ...any) *Error {
	return &Error{Code: ExitUsage, Msg: fmt.Sprintf(format, a...)}
}

// Env is a refusal with exit code 3.
func Env(format string, a ...any) *Error {
	return &Error{Code: ExitEnv, Msg: fmt.Sprintf(format, a...)}
}
