//go:build linux || darwin

package reaper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/shadow-dev/shadow/internal/sandbox/landlock"
	"github.com/shadow-dev/shadow/internal/sandbox/reexec"
)

// HelperError is a failure of the helper before or while starting the
// command (the command's own failure is its exit status).
type HelperError struct {
	Stage string
	Msg   string
}

func (e *HelperError) Error() string { return "process helper: " + e.Stage + ": " + e.Msg }

// Command is one command to run under the helper.
type Command struct {
	Argv   []string
	Dir    string   // its working directory
	Env    []string // its whole environment; PATH in it finds Argv[0]
	Output io.Writer
	// Grace is how long its processes get between SIGTERM and SIGKILL on
	// timeout or cancel (default 2s).
	Grace time.Duration
	// Seal, when set, seals the command with Landlock where the kernel
	// offers it (Status.Seal says what was enforced).
	Seal *landlock.Policy
}

// Run runs c under the helper (this binary re-executed, see MaybeHelper)
// and returns once the helper has exited, which it does only after every
// descendant of the command is gone: the command exited, or the context
// ended (then the helper SIGTERMs the tree, waits Grace, SIGKILLs what is
// left). onStart, when not nil, gets the helper's identity as soon as it
// runs, for a record a later shadow can act on (Outlive) should this one
// die. The status is nil when the helper was killed before it could
// report; a command that cannot start is an error with its reason.
func Run(ctx context.Context, c Command, onStart func(ProcID)) (*Status, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("no command")
	}
	// The helper unsets helperEnv before it starts the command, so seeing
	// it here means this binary was re-executed as the helper and did not
	// dispatch MaybeHelper (a test binary whose TestMain lacks it): going
	// on would re-execute again, forever.
	if os.Getenv(helperEnv) != "" {
		return nil, errors.New("this binary was started as shadow's process helper but does not dispatch it: call reaper.MaybeHelper first in main (or TestMain)")
	}
	if c.Grace <= 0 {
		c.Grace = 2 * time.Second
	}
	cfg := helperConfig{Argv: c.Argv, Dir: c.Dir, Parent: os.Getpid(), Grace: c.Grace, Seal: c.Seal}
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	// The helper starts the command only once onStart has recorded it: a
	// shadow killed in between leaves no command that no record names.
	goR, goW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer goW.Close()
	res, err := reexec.Run(ctx, reexec.Spec{
		Arg0: helperArg0, Dir: c.Dir, Output: c.Output,
		Env:   append(append([]string{}, c.Env...), helperEnv+"="+string(cfgJSON)),
		Files: []*os.File{goR}, StatusFD: statusFD, // goFD after it
		Sys: helperAttr(),
		Started: func(pid int) {
			goR.Close()
			if id, ok := Identify(pid); ok && onStart != nil {
				onStart(id)
			}
			_, _ = goW.Write([]byte{1})
			goW.Close()
		},
		// The helper ends the command's tree (SIGTERM, grace, SIGKILL)
		// and reports; only a helper that does not is killed.
		Stop: func(p *os.Process, exited <-chan struct{}) {
			_ = p.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(c.Grace + 10*time.Second):
				_ = p.Kill()
			}
		},
		// The helper ends every process that holds the output pipe before
		// it exits; WaitDelay only guards against the unexpected.
		WaitDelay: 5 * time.Second,
	})
	if err != nil {
		goR.Close()
		return nil, fmt.Errorf("start the process helper: %w", err)
	}
	var st Status
	if ok, err := res.Decode(&st, "the process helper"); !ok {
		return nil, err
	}
	if st.Error != "" {
		if st.Stage == "start command" {
			// As in the other modes: a command that cannot start is the
			// sandbox's error, reported with its reason.
			return &st, errors.New(st.Error)
		}
		return &st, &HelperError{Stage: st.Stage, Msg: st.Error}
	}
	return &st, nil
}
