//go:build !linux && !darwin

package copy

import (
	"context"
	"errors"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

// Copy mode needs a Unix process model (a helper that ends the command's
// whole tree); elsewhere the sandbox refuses to run.

const SiblingDir = ".shadow-copies"

type Options struct {
	Skip                []string
	Exclude             []string
	Grace               time.Duration
	RequireSeal, NoSeal bool
	Writable            []string
	HostPorts           []int
	CacheDir            string
}

type Sandbox struct{}

func New(base string, opts Options) *Sandbox       { return &Sandbox{} }
func (s *Sandbox) Mode() engine.Mode               { return engine.ModeCopy }
func (s *Sandbox) Parallel() bool                  { return true }
func (s *Sandbox) CopyCost() (ms, bytes int64)     { return 0, 0 }
func Base(stateSandboxes, workspace string) string { return stateSandboxes }
func TmpCopies() string                            { return "" }
func Bases(stateSandboxes, workspace string) []string {
	return []string{stateSandboxes}
}
func Usable(base, workspace string) error { return errors.New("copy mode needs Linux or macOS") }
func (s *Sandbox) Run(ctx context.Context, job engine.Job) (engine.Outcome, error) {
	return engine.Outcome{ExitCode: -1}, errors.New("copy mode needs Linux or macOS")
}

type GCResult struct {
	Removed []string
	Kept    map[string]string
	Errors  []error
}

func GC(base string, minAge time.Duration) GCResult { return GCResult{} }

type CacheGC struct {
	Removed, Kept map[string]string
	Errors        []error
}

func GCCaches(dir string) CacheGC { return CacheGC{} }
