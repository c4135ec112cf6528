package snap

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shadow-dev/shadow/engine"
)

// Applied is what ApplyHyp did.
type Applied struct {
	Run, Hyp string
	// Files are the paths written (and deleted), in order.
	Files []string
	// Baseline: the hypothesis changes nothing, so nothing was done.
	Baseline bool
	// Already: the checkout already holds the hypothesis, nothing was done.
	Already bool
}

// ApplyHyp writes the recorded hypothesis RUN/HYP into the checkout ws
// (`shadow apply`, and `a` on a recorded run in the TUI), with --apply's
// safety: every target must still hold what it held when that run started,
// as recorded with the run, else nothing is written and the error is an
// *engine.ConflictError. A path whose state at the start was not recorded
// is not applied either. Each file is written atomically, its mode kept; a
// failure part-way is a *WriteError naming what was written. Other errors
// (the record unreadable) name the run.
//
// Only the hypothesis's code is written (CodeOnly); ApplyHypTests with
// withTests writes its proposed tests too.
func (s Store) ApplyHyp(ws, run, hyp string) (*Applied, error) {
	return s.ApplyHypTests(ws, run, hyp, false)
}

// ApplyHypTests is ApplyHyp; withTests writes the judge files the
// hypothesis proposed (its tests) as well as its code.
//
// What an agent, an editor or git would obey is not written
// (*engine.RiskyError): ApplyChecked with force writes it.
func (s Store) ApplyHypTests(ws, run, hyp string, withTests bool) (*Applied, error) {
	return s.applyHyp(ws, run, hyp, withTests, engine.ApplyOptions{})
}

func (s Store) applyHyp(ws, run, hyp string, withTests bool, o engine.ApplyOptions) (*Applied, error) {
	a := &Applied{Run: run, Hyp: hyp}
	h, _, err := s.LoadHyp(ws, run, hyp)
	if err != nil {
		return a, err
	}
	if !withTests {
		h = s.CodeOnly(ws, run, h)
	}
	if h.IsBaseline() {
		a.Baseline = true
		return a, nil
	}
	orig, err := s.LoadOriginals(ws, run)
	if err != nil {
		return a, fmt.Errorf("run %s has no record of the checkout at its start, so a change since cannot be detected: %v", run, err)
	}
	paths := make([]string, 0, len(h.Files)+len(h.Deletes))
	for _, f := range h.Files {
		paths = append(paths, f.Path)
	}
	paths = append(paths, h.Deletes...)
	for _, p := range paths {
		if _, ok := orig[p]; !ok {
			return a, fmt.Errorf("run %s has no record of %s at its start: not applied", run, p)
		}
	}
	if AlreadyApplied(ws, h) {
		a.Already = true
		return a, nil
	}
	a.Files, err = engine.ApplyHypothesisWith(ws, h, orig, o)
	var ce *engine.ConflictError
	var se *engine.StoppedError    // names what it wrote itself
	var re *engine.RiskyError      // wrote nothing
	var ne *engine.NotWrittenError // wrote nothing either
	if err != nil && !errors.As(err, &ce) && !errors.As(err, &se) && !errors.As(err, &re) && !errors.As(err, &ne) {
		return a, &WriteError{Err: err, Written: a.Files}
	}
	return a, err
}

// WriteError is an apply that failed part-way: Written were written.
type WriteError struct {
	Err     error
	Written []string
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("%v (written before the failure: %s)", e.Err, strings.Join(e.Written, ", "))
}

func (e *WriteError) Unwrap() error { return e.Err }

// AlreadyApplied reports whether the checkout ws already holds every file
// of h (content and mode) and none of its deletes.
func AlreadyApplied(ws string, h engine.Hypothesis) bool {
	for _, f := range h.Files {
		p := filepath.Join(ws, filepath.FromSlash(f.Path))
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != f.Mode.Perm() {
			return false
		}
		if b, err := os.ReadFile(p); err != nil || !bytes.Equal(b, f.Content) {
			return false
		}
	}
	for _, d := range h.Deletes {
		if _, err := os.Lstat(filepath.Join(ws, filepath.FromSlash(d))); err == nil {
			return false
		}
	}
	return true
}
