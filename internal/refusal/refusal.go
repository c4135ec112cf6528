// Package refusal is shadow's one refusal type: what a command, the run
// service, the sandbox chooser or a remote node returns when nothing ran
// and nothing was written, with the exit code the CLI ends with
// (docs/cli.md, "Exit codes") and, for the environment's refusals, the
// reason and the fix. internal/run names it run.Error and
// internal/sandbox sandbox.Refusal; both are this type, so a refusal
// keeps its reason and fix on its way up and cli.ExitCode reads one kind.
//
// It imports nothing of shadow's: the sandbox packages use it without
// depending on the run service.
package refusal

import "fmt"

// The exit codes a refusal carries (docs/cli.md, "Exit codes").
const (
	ExitUsage = 2 // a mistake in the spec, the flags or the arguments
	ExitEnv   = 3 // the machine cannot do what was asked
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
