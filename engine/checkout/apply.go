package checkout

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/shadow-dev/shadow/engine/spec"
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
func ReadOriginals(workspace string, hyps []spec.Hypothesis) map[string]FileState {
	m := map[string]FileState{}
	for _, h := range hyps {
		for _, f := range h.Files {
			if _, ok := m[f.Path]; !ok {
				m[f.Path] = ReadState(workspace, f.Path)
			}
		}
		for _, p := range h.Deletes {
			if _, ok := m[p]; !ok {
				m[p] = ReadState(workspace, p)
			}
		}
	}
	return m
}

func ReadState(workspace, rel string) FileState {
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

func SameState(a, b FileState) bool {
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
func CheckApply(workspace string, h spec.Hypothesis, orig map[string]FileState) error {
	return CheckApplyWith(workspace, h, orig, ApplyOptions{})
}

// ApplyOptions are an apply's choices.
type ApplyOptions struct {
	// Force writes what an agent, an editor or git would obey (a
	// *RiskyError otherwise): the user reviewed it (--force, MCP's force,
	// the TUI's confirmation).
	Force bool
}

// CheckApplyWith is CheckApply; unless o.Force, a hypothesis writing what
// an agent, an editor or git would obey in the checkout (RiskyFiles,
// GitRisks) is a *RiskyError first.
func CheckApplyWith(workspace string, h spec.Hypothesis, orig map[string]FileState, o ApplyOptions) error {
	if !o.Force {
		if err := riskyApply(workspace, h, orig); err != nil {
			return err
		}
	}
	var conflicts []string
	for _, f := range h.Files {
		if o, ok := orig[f.Path]; ok && !SameState(o, ReadState(workspace, f.Path)) {
			conflicts = append(conflicts, f.Path)
		}
	}
	for _, p := range h.Deletes {
		if o, ok := orig[p]; ok && !SameState(o, ReadState(workspace, p)) {
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
//
// Writing takes a while (fsync per file): an editor or agent may save a
// target meanwhile. So every target is compared again immediately before
// its rename (or removal), and the first one that changed stops the apply:
// a *StoppedError says what was written and what was not. Applies of
// shadow processes into one checkout are serialised by a lock on the
// checkout directory (lockApply), so two of them cannot interleave.
//
// Unless forced (ApplyHypothesisWith), what an agent, an editor or git
// would obey is never written (a *RiskyError, nothing written).
func ApplyHypothesis(workspace string, h spec.Hypothesis, orig map[string]FileState) ([]string, error) {
	return ApplyHypothesisWith(workspace, h, orig, ApplyOptions{})
}

// ApplyHypothesisWith is ApplyHypothesis with o's choices.
func ApplyHypothesisWith(workspace string, h spec.Hypothesis, orig map[string]FileState, o ApplyOptions) ([]string, error) {
	unlock, err := lockApply(workspace)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := CheckApplyWith(workspace, h, orig, o); err != nil {
		return nil, err
	}
	// Every file goes to a temporary file beside its target, synced,
	// before the first rename: a full disk, a quota or a read-only
	// directory then fails the apply with nothing of the set written
	// (a *NotWrittenError). Renames need no space.
	temps, err := writeTemps(workspace, h.Files)
	if err != nil {
		return nil, err
	}
	defer temps.cleanup()
	applied := []string{}
	stopped := func(i int, path string) error {
		e := &StoppedError{Changed: path, Written: applied}
		for _, f := range h.Files[min(i, len(h.Files)):] {
			e.NotWritten = append(e.NotWritten, f.Path)
		}
		for _, p := range h.Deletes[max(i-len(h.Files), 0):] {
			e.NotWritten = append(e.NotWritten, p)
		}
		return e
	}
	for i, f := range h.Files {
		changed, err := renameChecked(workspace, f, temps.names[i], orig)
		if changed {
			return applied, stopped(i, f.Path)
		}
		if err != nil {
			return applied, err
		}
		temps.names[i] = ""
		applied = append(applied, f.Path)
	}
	for i, p := range h.Deletes {
		if beforeRename != nil {
			beforeRename(p)
		}
		if o, ok := orig[p]; ok && !SameState(o, ReadState(workspace, p)) {
			return applied, stopped(len(h.Files)+i, p)
		}
		if err := os.RemoveAll(filepath.Join(workspace, filepath.FromSlash(p))); err != nil {
			return applied, fmt.Errorf("delete %s: %w", p, err)
		}
		applied = append(applied, p)
	}
	return applied, nil
}

// StoppedError: a target changed in the checkout while apply was writing
// (after the check every target passed): apply stopped before it. Written
// hold the hypothesis's version now; NotWritten (Changed first) do not.
type StoppedError struct {
	Changed    string
	Written    []string
	NotWritten []string
}

func (e *StoppedError) Error() string {
	w := "nothing"
	if len(e.Written) > 0 {
		w = strings.Join(e.Written, ", ")
	}
	return fmt.Sprintf("stopped: %s changed in the checkout while apply was writing; written: %s; not written: %s (the checkout holds part of the hypothesis: finish by hand, or restore the written files with git and re-run shadow)",
		e.Changed, w, strings.Join(e.NotWritten, ", "))
}

// beforeRename, when set (tests), runs between writing every temporary
// file and comparing a target: where a concurrent writer would strike.
var beforeRename func(path string)

// temps are an apply's temporary files (names[i] for Files[i], "" once
// renamed) and the directories it made for them.
type temps struct {
	names []string
	dirs  []string // deepest last
}

// cleanup removes what is left: temporary files not renamed, and made
// directories that hold nothing (a failed or stopped apply leaves the
// checkout's tree as it was).
func (t *temps) cleanup() {
	for _, n := range t.names {
		if n != "" {
			os.Remove(n)
		}
	}
	for i := len(t.dirs) - 1; i >= 0; i-- {
		os.Remove(t.dirs[i]) // fails, harmlessly, when something is in it
	}
}

// NotWrittenError: apply could not write a file of the set (a full disk,
// a quota, permissions) before any target was replaced: nothing was
// written.
type NotWrittenError struct {
	Path string
	Err  error
}

func (e *NotWrittenError) Error() string {
	return fmt.Sprintf("not applied: writing %s failed: %v; nothing was written (every file is written beside its target before the first is replaced)", e.Path, e.Err)
}

func (e *NotWrittenError) Unwrap() error { return e.Err }

// writeTemps writes every file beside its target, synced; on the first
// failure it removes what it wrote and made.
func writeTemps(workspace string, files []spec.File) (t *temps, err error) {
	t = &temps{names: make([]string, len(files))}
	defer func() {
		if err != nil {
			t.cleanup()
		}
	}()
	for i, f := range files {
		target := filepath.Join(workspace, filepath.FromSlash(f.Path))
		if err := mkdirs(filepath.Dir(target), workspace, &t.dirs); err != nil {
			return t, &NotWrittenError{Path: f.Path, Err: fmt.Errorf("create its directory: %w", err)}
		}
		if t.names[i], err = writeTemp(target, f.Content, f.Mode.Perm()); err != nil {
			return t, &NotWrittenError{Path: f.Path, Err: err}
		}
	}
	return t, nil
}

// mkdirs is os.MkdirAll of dir (below root), appending each directory it
// made to made, shallowest first.
func mkdirs(dir, root string, made *[]string) error {
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", dir)
		}
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir && len(parent) >= len(root) {
		if err := mkdirs(parent, root, made); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return err
	}
	*made = append(*made, dir)
	return nil
}

// renameChecked compares f's target with its state at the run's start
// and renames tmp over it only if it is unchanged (changed true
// otherwise). The window left between the comparison and rename(2) is a
// few system calls long.
func renameChecked(workspace string, f spec.File, tmp string, orig map[string]FileState) (changed bool, err error) {
	target := filepath.Join(workspace, filepath.FromSlash(f.Path))
	if beforeRename != nil {
		beforeRename(f.Path)
	}
	if o, ok := orig[f.Path]; ok && !SameState(o, ReadState(workspace, f.Path)) {
		return true, nil
	}
	if err := os.Rename(tmp, target); err != nil {
		return false, fmt.Errorf("write %s: %w", f.Path, err)
	}
	// The rename is durable once the directory is synced (fsync(2)).
	if d, err := os.Open(filepath.Dir(target)); err == nil {
		d.Sync()
		d.Close()
	}
	return false, nil
}

// writeTemp writes data, synced, to a new temporary file beside path with
// mode (fsutil.WriteFileAtomic's first half: apply compares the target
// before the rename).
func writeTemp(path string, data []byte, mode os.FileMode) (name string, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return "", err
	}
	// CreateTemp makes it 0600; the umask does not apply to chmod.
	if err = tmp.Chmod(mode.Perm()); err != nil {
		return "", err
	}
	if err = tmp.Sync(); err != nil {
		return "", err
	}
	return tmp.Name(), tmp.Close()
}
