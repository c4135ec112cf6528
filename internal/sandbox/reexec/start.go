//go:build unix

package reexec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// Spec is one helper to start.
type Spec struct {
	Arg0   string // argv[0]: the re-executed binary dispatches on it
	Dir    string // working directory ("" = shadow's)
	Env    []string
	Output io.Writer // the helper's stdout and stderr
	// Files become the helper's fds 3, 4, ..., with the status socket's
	// write end inserted at StatusFD (default: after them). They stay the
	// caller's to close.
	Files    []*os.File
	StatusFD int
	Sys      *syscall.SysProcAttr
	// Started runs once the helper runs, with its pid.
	Started func(pid int)
	// Stop ends the helper when the context is done. exited is closed
	// when the helper has exited; Stop may wait on it before it escalates.
	// Nil: SIGKILL.
	Stop func(p *os.Process, exited <-chan struct{})
	// WaitDelay: how long Wait waits for the output pipe to close after
	// the helper exited (default 5s).
	WaitDelay time.Duration
}

// statusChannel is the helper's status channel: a connected pair of unix
// stream sockets, not a pipe. Without a PID namespace (copy and in-place
// modes) the command runs as the same uid as the helper and shadow, and
// open(2) of /proc/PID/fd/N reopens a pipe in whatever mode is asked
// (proc(5)), so through the helper's fd or shadow's read end it could
// write a report of its own, or keep a writer open that shadow's read
// never sees the end of. A socket cannot be opened that way (ENXIO).
// Both ends are close-on-exec; the helper gets the write end as an
// ExtraFile.
func statusChannel() (r, w *os.File, err error) {
	// SOCK_CLOEXEC is not on every unix: mark them under ForkLock, as
	// os.Pipe does where pipe2 is missing.
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("reexec: status socket: %w", err)
	}
	// Only shadow reads and only the helper writes.
	_ = syscall.Shutdown(fds[0], syscall.SHUT_WR)
	_ = syscall.Shutdown(fds[1], syscall.SHUT_RD)
	return os.NewFile(uintptr(fds[0]), "status-r"), os.NewFile(uintptr(fds[1]), "status-w"), nil
}

// Result is how the helper ended.
type Result struct {
	// Status is what the helper wrote on its status socket, trimmed; empty
	// when it wrote nothing (killed before it could report).
	Status []byte
	// Wait is exec.Cmd.Wait's error (the helper's exit status).
	Wait error
	// Cancelled: the context ended before the helper exited, and Stop ran.
	Cancelled bool
}

// Decode reads the helper's JSON report into v; who names the helper in
// errors ("the process helper", "sandbox init"). It returns false and no
// error when the helper was stopped on cancel before it could report: the
// caller's context says why.
func (r Result) Decode(v any, who string) (bool, error) {
	if len(r.Status) == 0 {
		if r.Cancelled {
			return false, nil
		}
		return false, fmt.Errorf("%s ended without a report: %v", who, r.Wait)
	}
	if err := json.Unmarshal(r.Status, v); err != nil {
		return false, fmt.Errorf("%s's report is unreadable: %v", who, err)
	}
	return true, nil
}

// Run starts the helper and waits for it. The error is exec's failure to
// start it (fork, exec, namespaces refused); everything after that is in
// the Result.
func Run(ctx context.Context, s Spec) (Result, error) {
	at := len(s.Files)
	if s.StatusFD != 0 {
		at = s.StatusFD - 3
	}
	if at < 0 || at > len(s.Files) {
		return Result{}, fmt.Errorf("reexec: status fd %d with %d extra files", s.StatusFD, len(s.Files))
	}
	exe, err := Self()
	if err != nil {
		return Result{}, err
	}
	statusR, statusW, err := statusChannel()
	if err != nil {
		return Result{}, err
	}
	defer statusR.Close()
	cmd := exec.Command(exe)
	cmd.Args = []string{s.Arg0}
	cmd.Dir = s.Dir
	cmd.Env = s.Env
	cmd.Stdout, cmd.Stderr = s.Output, s.Output
	files := append([]*os.File{}, s.Files[:at]...)
	files = append(files, statusW)
	cmd.ExtraFiles = append(files, s.Files[at:]...)
	cmd.SysProcAttr = s.Sys
	cmd.WaitDelay = s.WaitDelay
	if cmd.WaitDelay <= 0 {
		cmd.WaitDelay = 5 * time.Second
	}
	stop := s.Stop
	if stop == nil {
		stop = func(p *os.Process, _ <-chan struct{}) { _ = p.Kill() }
	}

	type outcome struct {
		r   Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		// PR_SET_PDEATHSIG fires when the thread that forked the child
		// exits (prctl(2)): keep this goroutine's thread until Wait.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		statusW.Close()
		if err != nil {
			done <- outcome{err: err}
			return
		}
		if s.Started != nil {
			s.Started(cmd.Process.Pid)
		}
		var r Result
		waited := make(chan error, 1)
		exited := make(chan struct{})
		go func() {
			err := cmd.Wait()
			close(exited)
			waited <- err
		}()
		select {
		case r.Wait = <-waited:
		case <-ctx.Done():
			r.Cancelled = true
			stop(cmd.Process, exited)
			r.Wait = <-waited
		}
		raw, _ := io.ReadAll(statusR)
		r.Status = bytes.TrimSpace(raw)
		done <- outcome{r: r}
	}()
	o := <-done
	return o.r, o.err
}
