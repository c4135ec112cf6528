//go:build !linux

package overlay

import (
	"context"
	"errors"

	"path/filepath"

	"github.com/shadow-dev/shadow/engine"
)

// Overlay shadows need Linux namespaces and overlayfs; elsewhere the probe
// says so and auto mode falls back to in-place runs.

func MaybeInit() {}

// CloseInheritedFDs is a no-op here: only the Linux sandbox starts commands
// that must not inherit descriptors.
func CloseInheritedFDs() {}

type Sandbox struct{}

func New(base string, options []string) *Sandbox { return &Sandbox{} }
func (s *Sandbox) Mask(dirs ...string) *Sandbox  { return s }
func (s *Sandbox) Writable(p ...string) *Sandbox { return s }
func (s *Sandbox) RAM(size int64) *Sandbox       { return s }
func (s *Sandbox) Upper() string                 { return "disk" }
func DefaultRAMSize() int64                      { return 2 << 30 }
func (s *Sandbox) Mode() engine.Mode             { return engine.ModeOverlay }
func (s *Sandbox) Parallel() bool                { return true }
func (s *Sandbox) Run(ctx context.Context, job engine.Job) (engine.Outcome, error) {
	return engine.Outcome{ExitCode: -1}, errors.New("overlay mode needs Linux")
}

func Probe(base string) Verdict {
	return Verdict{Mode: string(engine.ModeInplace), Stage: "create namespaces", Reason: "overlayfs and user namespaces need Linux", Fix: "shadow runs hypotheses one at a time in place here", Upper: base, Base: base,
		Protection: "accidents only: the command runs as you in the checkout itself, with no namespace, and can write whatever you can"}
}

func CachedProbe(base, cacheFile, version string) Verdict { return Probe(base) }

func TmpSandboxes() string { return filepath.Join(TmpRoot(), "sandboxes") }
