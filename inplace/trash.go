//go:build unix

package inplace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/shadow-dev/shadow/engine"
)

// A directory a hypothesis deletes is not removed: it is moved aside with
// one rename(2) into a trash dir on the same filesystem, and moved back by
// the restore. rename(2) is atomic (the directory is wholly in one place
// or the other whatever happens, kill -9 included), costs nothing for a
// tree of any size and keeps every byte, mode, owner and time. A recursive
// delete is none of these: killed half-way it leaves the tree half-empty.
//
// rename(2) fails with EXDEV across filesystems, and across mounts of one
// filesystem, so the trash must be on the directory's own mount. Tried in
// order:
//   - "state": trash/ inside the journal dir (the state dir), when it is
//     on the same mount as the directory;
//   - "git": the checkout's .git/shadow-trash/JOURNAL-ID, when .git is a
//     real directory on the same mount (it usually is, with the state dir
//     on another disk).
//
// With neither, a directory delete is refused before anything changes
// (NoTrashError, exit 3).
const (
	trashState = "state"
	trashGit   = "git"
)

// NoTrashError is a directory delete that in-place mode cannot make safe:
// no place on the directory's filesystem to move it aside to.
type NoTrashError struct {
	Path string // workspace-relative
	Why  string
}

func (e *NoTrashError) Error() string {
	return fmt.Sprintf("in-place mode cannot delete the directory %s safely: %s. It deletes a directory by moving it aside "+
		"(one rename on the same filesystem), so a crash can never leave it half-deleted; nothing was changed. "+
		"Use overlay mode, put the state dir (XDG_STATE_HOME) on the checkout's filesystem, or drop the delete", e.Path, e.Why)
}

// trashDir is where a trash of kind in lives for journal j.
func (j *Journal) trashDir(in string) string {
	switch in {
	case trashState:
		return filepath.Join(j.dir, "trash")
	case trashGit:
		return filepath.Join(j.Workspace, ".git", "shadow-trash", j.ID)
	}
	return ""
}

// trashPath is where the deleted directory n is while it is aside.
func (j *Journal) trashPath(n Node) string { return filepath.Join(j.trashDir(n.TrashIn), n.Trash) }

// pickTrash chooses the trash for the directory rel of the journal being
// built in tmpDir (the state one is created there). Nothing in the
// checkout changes here.
func (j *Journal) pickTrash(tmpDir, rel string) (string, error) {
	dev, mnt, err := mountOf(abs(j.Workspace, rel))
	if err != nil {
		return "", err
	}
	sameMount := func(p string) bool {
		d, m, err := mountOf(p)
		return err == nil && d == dev && (m == 0 || mnt == 0 || m == mnt)
	}
	st := filepath.Join(tmpDir, "trash")
	if err := os.Mkdir(st, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	if sameMount(st) {
		return trashState, nil
	}
	git := filepath.Join(j.Workspace, ".git")
	if fi, err := os.Lstat(git); err == nil && fi.IsDir() && sameMount(git) {
		return trashGit, nil
	}
	return "", &NoTrashError{Path: rel, Why: "neither the state dir nor the checkout's .git directory is on its filesystem"}
}

// moveAside renames the deleted directory e into its trash.
func (j *Journal) moveAside(e Entry) error {
	dir := j.trashDir(e.Orig.TrashIn)
	if e.Orig.TrashIn == trashGit {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	if err := os.Rename(abs(j.Workspace, e.Path), j.trashPath(e.Orig)); err != nil {
		return err
	}
	_ = syncDir(dir)
	return syncDir(filepath.Dir(abs(j.Workspace, e.Path)))
}

// listTree records the entries of the directory p (parents first): kind,
// mode, size and symlink target, enough to tell a directory that came
// back whole from one that did not.
func listTree(p string) ([]Node, error) {
	var out []Node
	err := filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if q == p {
			return nil
		}
		fi, err := os.Lstat(q)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(p, q)
		n := Node{Rel: filepath.ToSlash(rel), Mode: fi.Mode() & modeBits}
		switch {
		case fi.Mode().IsRegular():
			n.Kind, n.Size = "file", fi.Size()
		case fi.Mode()&fs.ModeSymlink != 0:
			n.Kind = "symlink"
			if n.Target, err = os.Readlink(q); err != nil {
				return err
			}
		case fi.IsDir():
			n.Kind = "dir"
		default:
			n.Kind = "other"
		}
		out = append(out, n)
		return nil
	})
	return out, err
}

// missingFrom lists what of the recorded tree want the directory p does
// not hold (absent, or another kind, size or target), at most a few.
func missingFrom(p string, want []Node) (missing []string, total int) {
	have, err := listTree(p)
	if err != nil {
		return []string{err.Error()}, len(want)
	}
	got := make(map[string]Node, len(have))
	for _, n := range have {
		got[n.Rel] = n
	}
	for _, w := range want {
		g, ok := got[w.Rel]
		bad := !ok || g.Kind != w.Kind || (w.Kind == "file" && g.Size != w.Size) || (w.Kind == "symlink" && g.Target != w.Target)
		if bad {
			total++
			if len(missing) < 10 {
				missing = append(missing, w.Rel)
			}
		}
	}
	sort.Strings(missing)
	return missing, total
}

// restoreDir puts the deleted directory e back from its trash, and checks
// that what is there afterwards holds every entry recorded when it was
// deleted. It returns whether it moved anything and, when the checkout
// cannot be made whole, an error saying what is missing (the journal is
// kept). A directory made at the path during the run (the command
// rebuilding it, the user) is moved aside into the kept dir, never lost.
func (j *Journal) restoreDir(e Entry) (moved bool, warning string, err error) {
	p := abs(j.Workspace, e.Path)
	trash := j.trashPath(e.Orig)
	_, terr := os.Lstat(trash)
	inTrash := terr == nil
	cur, cerr := os.Lstat(p)
	exists := cerr == nil
	if inTrash && exists {
		dst, kerr := j.keepAside(e.Path, p)
		if kerr != nil {
			return false, "", fmt.Errorf("%s was made again during the run and could not be moved aside (%v); the original is at %s", e.Path, kerr, trash)
		}
		warning = fmt.Sprintf("%s was made again during the run: the original is back, what the run left there is kept at %s", e.Path, dst)
		exists = false
	}
	switch {
	case inTrash:
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return false, warning, err
		}
		if err := os.Rename(trash, p); err != nil {
			return false, warning, fmt.Errorf("move %s back from %s: %w", e.Path, trash, err)
		}
		moved = true
		_ = syncDir(filepath.Dir(p))
		crashAt("mid-restore-dir")
	case !exists:
		return false, warning, fmt.Errorf("%s is gone and its copy is not in %s: look for it there and in %s", e.Path, trash, filepath.Dir(j.dir))
	case !cur.IsDir():
		return false, warning, fmt.Errorf("%s is a %s now, not the directory it was; the original is not in %s", e.Path, cur.Mode().Type(), trash)
	}
	if missing, n := missingFrom(p, e.Orig.Children); n > 0 {
		return moved, warning, fmt.Errorf("%s is back but misses %d of its %d entries (%s)", e.Path, n, len(e.Orig.Children), strings.Join(missing, ", "))
	}
	return moved, warning, nil
}

// keepAside moves p (the thing at a restored path the run left) into the
// kept dir on the same filesystem: the state dir's, else next to the
// trash.
func (j *Journal) keepAside(rel, p string) (string, error) {
	dsts := []string{
		filepath.Join(filepath.Dir(j.dir), KeptName, j.ID, filepath.FromSlash(rel)),
		filepath.Join(j.trashDir(trashGit)+"-kept", filepath.FromSlash(rel)),
	}
	var last error
	for _, dst := range dsts {
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			last = err
			continue
		}
		if err := os.Rename(p, dst); err != nil {
			last = err
			continue
		}
		return dst, nil
	}
	return "", last
}

// removeTrash removes the (now empty) trash dirs of the journal; a trash
// that still holds something is left, and named.
func (j *Journal) removeTrash() error {
	for _, in := range []string{trashState, trashGit} {
		d := j.trashDir(in)
		err := os.Remove(d)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			if in == trashGit {
				_ = os.Remove(filepath.Dir(d)) // .git/shadow-trash, when empty
			}
			continue
		}
		if ents, rerr := os.ReadDir(d); rerr == nil && len(ents) > 0 {
			return fmt.Errorf("the trash %s still holds %d deleted director(y/ies): the journal is kept", d, len(ents))
		}
		return err
	}
	return nil
}

// Check refuses, before anything runs, a directory delete of hyps that
// this sandbox could not make safe (a *NoTrashError: no trash on the
// directory's filesystem), so the run ends with exit 3 instead of one
// hypothesis failing half-way through a run. It writes nothing in the
// checkout.
func (s *Sandbox) Check(ws string, hyps []engine.Hypothesis) error {
	for _, h := range hyps {
		for _, d := range h.Deletes {
			if fi, err := os.Lstat(abs(ws, d)); err != nil || !fi.IsDir() {
				continue
			}
			if err := os.MkdirAll(s.stateDir, 0o700); err != nil {
				return err
			}
			tmp, err := os.MkdirTemp(s.stateDir, ".trash-probe-")
			if err != nil {
				return err
			}
			_, err = (&Journal{Workspace: ws}).pickTrash(tmp, d)
			os.RemoveAll(tmp)
			if err != nil {
				var nt *NoTrashError
				if errors.As(err, &nt) {
					return fmt.Errorf("hypothesis %q: %w", h.Name, err)
				}
				return err
			}
		}
	}
	return nil
}
