package engine

import (
	"bytes"
	"fmt"
	"github.com/shadow-dev/shadow/internal/fsutil"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// FileState is what a checkout path held when a run started.
type FileState struct {
	Exists  bool
	Dir     bool
	Link    bool
	Content []byte
	Mode    os.FileMode
}

// ReadOriginals reads the checkout's version of every path the hypotheses
// touch: the "before" side of their diffs, and what --apply compares
// against to detect a change made while the run went on.
func ReadOriginals(workspace string, hyps []Hypothesis) map[string]FileState {
	m := map[string]FileState{}
	for _, h := range hyps {
		for _, f := range h.Files {
			if _, ok := m[f.Path]; !ok {
				m[f.Path] = readState(workspace, f.Path)
			}
		}
		for _, p := range h.Deletes {
			if _, ok := m[p]; !ok {
				m[p] = readState(workspace, p)
			}
		}
	}
	return m
}

func readState(workspace, rel string) FileState {
	p := filepath.Join(workspace, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	if err != nil {
		return FileState{}
	}
	st := FileState{Exists: true, Mode: fi.Mode().Perm(), Dir: fi.IsDir(), Link: fi.Mode()&fs.ModeSymlink != 0}
	if fi.Mode().IsRegular() {
		st.Content, _ = os.ReadFile(p)
	}
	if st.Link {
		t, _ := os.Readlink(p)
		st.Content = []byte(t)
	}
	return st
}

func sameState(a, b FileState) bool {
	return a.Exists == b.Exists && a.Dir == b.Dir && a.Link == b.Link && a.Mode == b.Mode && bytes.Equal(a.Content, b.Content)
}

// ConflictError lists the checkout paths that changed since the run
// started; nothing was written.
type ConflictError struct{ Paths []string }

func (e *ConflictError) Error() string {
	return "not applied: changed in the checkout since the run started: " + strings.Join(e.Paths, ", ") + " (re-run shadow, or apply by hand)"
}

// CheckApply is the check ApplyHypothesis makes before it writes
// anything (and `shadow apply --dry-run` alone): a *ConflictError naming
// every target whose state differs from orig, its state when the run
// started, or nil.
func CheckApply(workspace string, h Hypothesis, orig map[string]FileState) error {
	var conflicts []string
	for _, f := range h.Files {
		if o, ok := orig[f.Path]; ok && !sameState(o, readState(workspace, f.Path)) {
			conflicts = append(conflicts, f.Path)
		}
	}
	for _, p := range h.Deletes {
		if o, ok := orig[p]; ok && !sameState(o, readState(workspace, p)) {
			conflicts = append(conflicts, p)
		}
	}
	if len(conflicts) > 0 {
		sort.Strings(conflicts)
		return &ConflictError{Paths: conflicts}
	}
	return nil
}

// ApplyHypothesis writes h's files into the checkout and performs its
// deletions. Every target is first compared with orig, its state when the
// run started; if any differs nothing is written. Each file is written to a
// temporary file beside it and renamed over the target (rename(2) is
// atomic), so a reader sees the old or the new file, never half of one.
func ApplyHypothesis(workspace string, h Hypothesis, orig map[string]FileState) ([]string, error) {
	if err := CheckApply(workspace, h, orig); err != nil {
		return nil, err
	}
	applied := []string{}
	for _, f := range h.Files {
		if err := writeAtomic(workspace, f); err != nil {
			return applied, err
		}
		applied = append(applied, f.Path)
	}
	for _, p := range h.Deletes {
		if err := os.RemoveAll(filepath.Join(workspace, filepath.FromSlash(p))); err != nil {
			return applied, fmt.Errorf("delete %s: %w", p, err)
		}
		applied = append(applied, p)
	}
	return applied, nil
}

func writeAtomic(workspace string, f File) error {
	target := filepath.Join(workspace, filepath.FromSlash(f.Path))
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return fmt.Errorf("create directory for %s: %w", f.Path, err)
	}
	if err := fsutil.WriteFileAtomic(target, f.Content, f.Mode.Perm(), true); err != nil {
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	return nil
}
