//go:build !linux

package landlock

import (
	"errors"
	"syscall"
)

// Landlock is Linux's: elsewhere there is no seal, and copy and in-place
// modes guard against accidents only.

func Status() (abi int, why string) { return 0, "Landlock is a Linux security module" }

func Supported() bool { return false }

// ErrUnsealed: see the Linux file.
type ErrUnsealed struct{ Why error }

func (e *ErrUnsealed) Error() string { return "Landlock could not seal the command: " + e.Why.Error() }

// Sealed: see the Linux file.
type Sealed struct {
	ABI  int
	Open string
}

func (s Sealed) String() string { return Seal(s.ABI) }

func ForkExecSealed(p Policy, path string, argv []string, attr *syscall.ProcAttr) (int, Sealed, error) {
	return 0, Sealed{}, &ErrUnsealed{Why: errors.New("Landlock is a Linux security module")}
}

// Sealer: see the Linux file.
type Sealer struct{}

func Prepare(p Policy) *Sealer { return &Sealer{} }

func (s *Sealer) ForkExec(path string, argv []string, attr *syscall.ProcAttr) (int, Sealed, error) {
	return 0, Sealed{}, &ErrUnsealed{Why: errors.New("Landlock is a Linux security module")}
}

func (s *Sealer) ForkExecWhen(prep func() (string, []string, *syscall.ProcAttr, error)) (int, Sealed, error) {
	return 0, Sealed{}, &ErrUnsealed{Why: errors.New("Landlock is a Linux security module")}
}
