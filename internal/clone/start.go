//go:build linux || darwin

package clone

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// HelperError is a failure of the helper before or while starting the
// command (the command's own failure is its exit status).
type HelperError struct {
	Stage string
	Msg   string
}

func (e *HelperError) Error() string { return "copy mode: " + e.Stage + ": " + e.Msg }

// startHelper re-executes this binary as the helper in the copy and waits
// for it. onStart gets the helper's identity for the owner file. It
// returns the helper's status, or nil when the helper was killed before it
// could report.
func startHelper(ctx context.Context, cfg helperConfig, env []string, output io.Writer, onStart func(procID)) (*helperStatus, error) {
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	exe, err := selfExe()
	if err != nil {
		return nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer statusR.Close()
	cmd := exec.Command(exe)
	cmd.Args = []string{helperArg0}
	cmd.Dir = cfg.Dir
	cmd.Env = append(append([]string{}, env...), helperEnv+"="+string(cfgJSON))
	cmd.Stdout, cmd.Stderr = output, output
	cmd.ExtraFiles = []*os.File{statusW}
	cmd.SysProcAttr = helperAttr()
	// The helper ends every process that holds the output pipe before it
	// exits; WaitDelay only guards against the unexpected.
	cmd.WaitDelay = 5 * time.Second

	type result struct {
		st  *helperStatus
		err error
	}
	done := make(chan result, 1)
	go func() {
		// PR_SET_PDEATHSIG fires when the thread that forked the child
		// exits (prctl(2)): keep this goroutine's thread until Wait.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			statusW.Close()
			done <- result{nil, fmt.Errorf("start the copy-mode helper (%s): %w", exe, err)}
			return
		}
		statusW.Close()
		if st, ok := procStart(cmd.Process.Pid); ok {
			onStart(procID{PID: cmd.Process.Pid, Start: st})
		}
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		var werr error
		select {
		case werr = <-waited:
		case <-ctx.Done():
			// The helper ends the command's tree (SIGTERM, grace, SIGKILL)
			// and reports; only a helper that does not is killed.
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case werr = <-waited:
			case <-time.After(cfg.Grace + 10*time.Second):
				_ = cmd.Process.Kill()
				werr = <-waited
			}
		}
		raw, _ := io.ReadAll(statusR)
		if len(bytes.TrimSpace(raw)) == 0 {
			if ctx.Err() != nil {
				done <- result{nil, nil}
				return
			}
			done <- result{nil, fmt.Errorf("the copy-mode helper ended without a report: %v", werr)}
			return
		}
		var st helperStatus
		if err := json.Unmarshal(raw, &st); err != nil {
			done <- result{nil, fmt.Errorf("the copy-mode helper's report is unreadable: %v", err)}
			return
		}
		if st.Error != "" {
			done <- result{&st, &HelperError{Stage: st.Stage, Msg: st.Error}}
			return
		}
		done <- result{&st, nil}
	}()
	r := <-done
	var he *HelperError
	if errors.As(r.err, &he) && he.Stage == "start command" {
		// As in the other modes: a command that cannot start is the
		// sandbox's error, reported with its reason.
		return r.st, errors.New(he.Msg)
	}
	return r.st, r.err
}
