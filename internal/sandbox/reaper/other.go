//go:build !linux && !darwin

package reaper

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/shadow-dev/shadow/internal/sandbox/landlock"
)

// The helper needs a Unix process model with a way to list a process's
// descendants (/proc on Linux, kern.proc on macOS); elsewhere Run refuses.

func MaybeHelper() {}

type Status struct {
	Exit    int
	Signal  string
	Ended   int
	Ending  string
	Seal    string
	SealWhy string
}

type Command struct {
	Argv   []string
	Dir    string
	Env    []string
	Output io.Writer
	Grace  time.Duration
	Seal   *landlock.Policy
}

type ProcID struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

func Identify(pid int) (ProcID, bool)      { return ProcID{}, false }
func Self() ProcID                         { return ProcID{} }
func (p ProcID) Alive() bool               { return false }
func BootID() string                       { return "" }
func Outlive(h ProcID, wait time.Duration) {}

// ErrUnsupported is Run's error here.
var ErrUnsupported = errors.New("the process helper needs Linux or macOS")

func Supported() error { return ErrUnsupported }

func Run(ctx context.Context, c Command, onStart func(ProcID)) (*Status, error) {
	return nil, ErrUnsupported
}
