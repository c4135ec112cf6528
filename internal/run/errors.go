package run

import (
	"fmt"

	"github.com/shadow-dev/shadow/internal/refusal"
)

// Exit codes (docs/cli.md).
const (
	ExitWinner = 0
	ExitNone   = 1
	ExitUsage  = refusal.ExitUsage
	ExitEnv    = refusal.ExitEnv
	// ExitInterrupted: the run was interrupted (SIGINT/SIGTERM), whatever
	// had finished by then (128 + SIGINT, as shells report it).
	ExitInterrupted = 130
)

// Error is a refusal (internal/refusal: the one type, which
// internal/sandbox names Refusal): nothing ran and nothing was written.
// Code is the exit code the CLI ends with: ExitUsage for a mistake in the
// spec, the flags or the arguments; ExitEnv when the machine cannot do
// what was asked, with the Reason and, where one is known, the Fix.
type Error = refusal.Error

// Usage is a refusal with exit code 2.
func Usage(format string, a ...any) *Error {
	return &Error{Code: ExitUsage, Msg: fmt.Sprintf(format, a...)}
}

// Env is a refusal with exit code 3.
func Env(format string, a ...any) *Error {
	return &Error{Code: ExitEnv, Msg: fmt.Sprintf(format, a...)}
}
