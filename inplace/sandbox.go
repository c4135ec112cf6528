//go:build unix

// Package inplace runs hypotheses one at a time in the checkout itself,
// for machines where overlay shadows cannot be made (no user namespaces,
// no overlayfs). It never loses a file:
//
//   - a lock per workspace (flock on a file in the state dir) makes shadow
//     processes take turns;
//   - before anything in the checkout changes, a journal of every original
//     (bytes, mode, mtime, symlink target or absence, the directories that
//     will be created) is written to the state dir and fsynced, file and
//     directory, and committed by one rename;
//   - files are replaced (temporary file + rename), never written through:
//     a hard-linked twin keeps its bytes, a symlink is replaced, not
//     followed;
//   - the command runs under the process helper (internal/sandbox/reaper), a child
//     subreaper that, when the command exits, on timeout, Ctrl-C or
//     shadow's death, ends every process the command started, setsid
//     daemons and double forks included (SIGTERM, a grace period,
//     SIGKILL), and only then returns (on macOS, without a subreaper, a
//     double-forked process re-parented to launchd escapes it);
//   - afterwards, with nothing of the command left running, each path is
//     restored only if it still holds what the hypothesis wrote; one that
//     changed (a user's edit) is left alone and reported, its original
//     kept in the state dir;
//   - the journal is removed last. A crash at any point leaves either no
//     journal (nothing was touched) or a complete one, which the next
//     shadow invocation on the workspace, or `shadow gc`, replays.
package inplace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/reaper"
)

// Grace is how long a command's processes have to exit after SIGTERM
// (timeout, cancel, or left running when it exited) before they are
// killed.
var Grace = 2 * time.Second

// Sandbox is the in-place sandbox of one workspace.
type Sandbox struct {
	stateDir string    // the workspace's state dir: lock and journal
	notice   io.Writer // where waiting and recovery notices go (stderr)

	seal SealOptions // seal.go

	mu      sync.Mutex
	release func()
	holds   int
}

// New returns the in-place sandbox whose lock and journal live in
// stateDir (the workspace's folder in the state dir). Notices (waiting
// for the lock, files left alone) go to notice, which may be nil.
func New(stateDir string, notice io.Writer) *Sandbox {
	return &Sandbox{stateDir: stateDir, notice: notice}
}

func (s *Sandbox) Mode() engine.Mode { return engine.ModeInplace }
func (s *Sandbox) Parallel() bool    { return false }

// LockPath is the workspace lock's file.
func (s *Sandbox) LockPath() string { return filepath.Join(s.stateDir, LockName) }

// HoldRun takes the workspace lock for a whole run, so that no other run
// reads or changes the checkout between this run's hypotheses (the engine
// reads the originals before the first one and applies the winner after
// the last). The release is safe to call once.
func (s *Sandbox) HoldRun(ctx context.Context) func() {
	rel, err := s.hold(ctx)
	if err != nil {
		return func() {}
	}
	return rel
}

func (s *Sandbox) hold(ctx context.Context) (func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holds == 0 {
		rel, err := Lock(ctx, s.LockPath(), true, s.notice)
		if err != nil {
			return nil, err
		}
		s.release = rel
	}
	s.holds++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.holds--
			if s.holds == 0 {
				s.release()
				s.release = nil
			}
		})
	}, nil
}

// Run implements engine.Sandbox: journal, write, run, restore.
func (s *Sandbox) Run(ctx context.Context, job engine.Job) (engine.Outcome, error) {
	out := engine.Outcome{ExitCode: -1}
	rel, err := s.hold(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return out, nil // cancelled while waiting: nothing ran
		}
		return out, err
	}
	defer rel()
	crashAt("before-journal")
	// A journal nobody replayed (this process's own, after a failed
	// restore, or a crash's) goes first.
	if HasJournal(s.stateDir) {
		r, err := Recover(s.stateDir, job.Workspace)
		s.say(r)
		if err != nil {
			return out, err
		}
		out.Warnings = append(out.Warnings, r.Warnings...)
	}
	if len(job.Command) == 0 {
		return out, errors.New("no command")
	}
	if err := reaper.Supported(); err != nil {
		return out, err // nothing in the checkout changed
	}
	j, err := begin(s.stateDir, job)
	if err != nil {
		return out, err // nothing in the checkout changed
	}
	crashAt("after-journal")

	var runErr error
	if err := j.apply(job.Hyp); err != nil {
		runErr = err
	} else if ctx.Err() == nil {
		if err := j.markCommandStarted(); err != nil {
			runErr = fmt.Errorf("journal: %w", err)
		} else {
			before := statCollect(job)
			var ended int
			out.ExitCode, out.Signal, ended, out.Seal, runErr = s.command(ctx, job, j)
			if ended > 0 {
				out.Warnings = append(out.Warnings, fmt.Sprintf("in-place mode: the command left %d process(es) running (a daemon, setsid or double fork); they were ended before the checkout was restored", ended))
			}
			out.Collected = collect(job, before)
		}
	}

	_, warnings, rerr := j.restore()
	for _, w := range warnings {
		fmt.Fprintf(job.Output, "\nshadow: %s\n", w)
		if s.notice != nil {
			fmt.Fprintf(s.notice, "shadow: %s: %s\n", job.Hyp.Name, w)
		}
	}
	out.Warnings = append(out.Warnings, warnings...)
	if rerr != nil {
		if s.notice != nil {
			fmt.Fprintf(s.notice, "shadow: %v\n", rerr)
		}
		return out, rerr
	}
	if err := j.remove(); err != nil {
		return out, fmt.Errorf("remove journal %s: %w", j.dir, err)
	}
	return out, runErr
}

func (s *Sandbox) say(r Recovered) {
	if s.notice == nil {
		return
	}
	if d := r.Describe(); d != "" {
		fmt.Fprintln(s.notice, "shadow: "+d)
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(s.notice, "shadow: "+w)
	}
}

// command runs the job's command in the subdir under the process helper
// (internal/sandbox/reaper), output to job.Output, until it exits or ctx ends. The
// helper returns only once every process the command started is gone,
// setsid daemons and double forks included: none can write into the
// checkout after the restore that follows.
func (s *Sandbox) command(ctx context.Context, job engine.Job, j *Journal) (exit int, sig string, ended int, seal string, err error) {
	dir := filepath.Join(job.Workspace, filepath.FromSlash(job.Subdir))
	policy, env, cleanup, err := s.sealed(job.Workspace, job.Env)
	if err != nil {
		return -1, "", 0, "", fmt.Errorf("prepare the seal: %w", err)
	}
	defer cleanup()
	st, err := reaper.Run(ctx, reaper.Command{Argv: job.Command, Dir: dir, Env: env, Output: job.Output, Grace: Grace, Seal: policy},
		func(h reaper.ProcID) {
			// Lets a replay after a crash wait for the helper to end the
			// command's tree (best effort: without it the replay cannot).
			// The helper starts the command only after this returns.
			crashAt("helper-started")
			j.Helper = &h
			_ = j.writeManifest()
			crashAt("during-command")
		})
	if err != nil {
		return -1, "", 0, "", err
	}
	if st == nil { // killed before it could report (cancelled)
		return -1, "", 0, "", nil
	}
	if st.Ending == "" {
		ended = st.Ended
	}
	seal = st.Seal
	if seal == "" && st.SealWhy != "" {
		seal = "none: guards against accidents only (" + st.SealWhy + ")"
	}
	return st.Exit, st.Signal, ended, seal, nil
}

// statCollect notes the state of the files the engine wants to read
// afterwards, so that only what the command wrote counts.
func statCollect(job engine.Job) map[string]fs.FileInfo {
	m := map[string]fs.FileInfo{}
	for _, p := range job.Collect {
		if fi, err := os.Lstat(abs(job.Workspace, p)); err == nil {
			m[p] = fi
		}
	}
	return m
}

func collect(job engine.Job, before map[string]fs.FileInfo) map[string][]byte {
	if len(job.Collect) == 0 {
		return nil
	}
	got := map[string][]byte{}
	for _, p := range job.Collect {
		fi, err := os.Lstat(abs(job.Workspace, p))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if b := before[p]; b != nil && os.SameFile(b, fi) && b.ModTime().Equal(fi.ModTime()) && b.Size() == fi.Size() {
			continue // not written by this command
		}
		if c, err := os.ReadFile(abs(job.Workspace, p)); err == nil {
			got[p] = c
		}
	}
	return got
}
