//go:build !unix

package inplace

import (
	"context"
	"errors"
	"io"

	"github.com/shadow-dev/shadow/engine"
)

// In-place runs need flock(2), process groups and POSIX renames; on other
// systems the mode is refused with this error and nothing is written.
var errUnsupported = errors.New("in-place mode needs a Unix system")

// Journal is never written here.
type Journal struct{ Workspace string }

// Recovered says what a replay did: nothing here.
type Recovered struct {
	Journal   *Journal
	Restored  []string
	Warnings  []string
	Discarded bool
}

type Sandbox struct{}

func New(stateDir string, notice io.Writer) *Sandbox { return &Sandbox{} }
func (s *Sandbox) Mode() engine.Mode                 { return engine.ModeInplace }
func (s *Sandbox) Parallel() bool                    { return false }
func (s *Sandbox) Run(ctx context.Context, job engine.Job) (engine.Outcome, error) {
	return engine.Outcome{ExitCode: -1}, errUnsupported
}

func Lock(ctx context.Context, path string, exclusive bool, notice io.Writer) (func(), error) {
	return func() {}, nil
}

func HasJournal(stateDir string) bool                       { return false }
func Recover(stateDir, workspace string) (Recovered, error) { return Recovered{}, nil }

func (r Recovered) Describe() string { return "" }

// SealOptions are the seal's settings; nothing is sealed here.
type SealOptions struct {
	Require, Off bool
	Writable     []string
	// Hidden are paths the sealed command may not read: shadow's own
	// dirs (sandbox.ShadowDirs), besides the state dir.
	Hidden []string
}

// Seal returns s: in-place mode is refused on this system anyway.
func (s *Sandbox) Seal(o SealOptions) *Sandbox { return s }
