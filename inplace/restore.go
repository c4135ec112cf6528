//go:build unix

package inplace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Recovered says what a replay of a leftover journal did.
type Recovered struct {
	Journal   *Journal // nil when there was nothing to replay
	Restored  []string // paths put back
	Warnings  []string // paths left alone (they changed after the hypothesis wrote them), and where their originals are kept
	Discarded bool     // an uncommitted journal was removed (the checkout had not been touched)
}

// HasJournal reports whether stateDir holds a journal (committed or not)
// that a replay would act on.
func HasJournal(stateDir string) bool {
	if _, err := os.Lstat(JournalDir(stateDir)); err == nil {
		return true
	}
	m, _ := filepath.Glob(filepath.Join(stateDir, JournalName+".tmp-*"))
	return len(m) > 0
}

// Recover replays a leftover journal in stateDir, if any: the caller holds
// the workspace lock exclusively, so no live run owns it. Journals that
// were never committed are removed (the checkout was not touched before
// the commit). workspace, when not empty, must match the journal's.
func Recover(stateDir, workspace string) (Recovered, error) {
	var r Recovered
	tmps, _ := filepath.Glob(filepath.Join(stateDir, JournalName+".tmp-*"))
	for _, t := range tmps {
		if err := os.RemoveAll(t); err != nil {
			return r, fmt.Errorf("remove uncommitted journal %s: %w", t, err)
		}
		r.Discarded = true
	}
	// Nothing of a journal is acted on before it is verified whole: its
	// MAC, every path, blob and trash name (verify.go).
	j, err := readJournal(stateDir, workspace)
	if err != nil || j == nil {
		return r, err
	}
	if j.Schema == "" { // only the remains of a replayed journal
		return r, os.RemoveAll(j.dir)
	}
	r.Journal = j
	killLeftovers(j)
	restored, warnings, err := j.restore()
	r.Restored, r.Warnings = restored, warnings
	if err != nil {
		return r, err
	}
	return r, j.remove()
}

// restore puts every original back, in reverse order of writing, where
// the checkout still holds what the hypothesis left; a path that changed
// since is left alone, its original copied to the kept dir, and reported.
// It is idempotent: a replay after a crash half-way through it finishes
// the job.
func (j *Journal) restore() (restored, warnings []string, err error) {
	var errs []string
	touched := map[string]bool{}
	for i := len(j.Entries) - 1; i >= 0; i-- {
		e := j.Entries[i]
		for _, t := range []string{j.tmpName(e.Path, ""), j.tmpName(e.Path, "r")} {
			_ = os.RemoveAll(t)
		}
		if err := checkParents(j.Workspace, e.Path); err != nil {
			if e.Orig.Kind == "dir" {
				errs = append(errs, fmt.Sprintf("%s: a parent directory was replaced during the run; the original is at %s", e.Path, j.trashPath(e.Orig)))
				continue
			}
			warnings = append(warnings, j.keep(e, "a parent directory was replaced during the run"))
			continue
		}
		if e.Delete && e.Orig.Kind == "dir" {
			moved, w, err := j.restoreDir(e)
			if w != "" {
				warnings = append(warnings, w)
			}
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			if moved {
				restored = append(restored, e.Path)
				touched[path.Dir(e.Path)] = true
				if len(restored) == 1 {
					crashAt("mid-restore")
				}
			}
			continue
		}
		cur, err := observe(j.Workspace, e.Path)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", e.Path, err))
			continue
		}
		switch {
		case same(cur, e.Orig):
			if !j.CommandStarted && e.Orig.Kind != "absent" && e.Orig.Kind != "dir" {
				// Never ran, or already restored: put the mtime back too.
				setTimes(abs(j.Workspace, e.Path), e.Orig.MTime)
			}
		case same(cur, e.Wrote):
			if err := j.put(e); err != nil {
				errs = append(errs, fmt.Sprintf("restore %s: %v", e.Path, err))
				continue
			}
			restored = append(restored, e.Path)
			touched[path.Dir(e.Path)] = true
			if len(restored) == 1 {
				crashAt("mid-restore")
			}
		default:
			warnings = append(warnings, j.keep(e, "it changed after the hypothesis wrote it"))
		}
	}
	for i := len(j.Created) - 1; i >= 0; i-- {
		// Only if empty: whatever the command or the user put there stays.
		if err := os.Remove(abs(j.Workspace, j.Created[i])); err == nil {
			touched[path.Dir(j.Created[i])] = true
		}
	}
	if !j.CommandStarted {
		for _, d := range j.Parents {
			setTimes(abs(j.Workspace, d.Path), d.MTime)
		}
	}
	// Everything put back (and every original kept aside) is durable
	// before the journal that could redo it is removed: one syncfs(2) of
	// each filesystem instead of an fsync per file and directory.
	if len(touched) > 0 || len(warnings) > 0 {
		if err := syncFS(j.Workspace); err != nil {
			errs = append(errs, fmt.Sprintf("sync the checkout: %v", err))
		}
		if err := syncFS(filepath.Dir(j.dir)); err != nil {
			errs = append(errs, fmt.Sprintf("sync the state dir: %v", err))
		}
	}
	if len(errs) > 0 {
		return restored, warnings, &IncompleteError{Journal: j.dir, Problems: errs}
	}
	return restored, warnings, nil
}

// put writes e's original back over what the hypothesis left.
func (j *Journal) put(e Entry) error {
	p := abs(j.Workspace, e.Path)
	o := e.Orig
	if o.Kind == "absent" {
		err := os.Remove(p)
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		return err
	}
	tmp := j.tmpName(e.Path, "r")
	_ = os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := j.materialize(tmp, o); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := j.finishNode(tmp, o); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return nil
}

// materialize creates n at p (a file from its blob, synced; a symlink; a
// directory tree). Directory modes and times are set by finishNode once
// their contents are in.
func (j *Journal) materialize(p string, n Node) error {
	switch n.Kind {
	case "file":
		in, err := os.Open(filepath.Join(j.dir, n.Blob))
		if err != nil {
			return fmt.Errorf("journal blob: %w", err)
		}
		defer in.Close()
		out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		// Not synced one by one: restore syncs the filesystem once before
		// the journal may go.
		_, err = io.Copy(out, in)
		if err == nil {
			err = out.Chmod(n.Mode)
		}
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		return j.finishNode(p, n)
	case "symlink":
		if err := os.Symlink(n.Target, p); err != nil {
			return err
		}
		return j.finishNode(p, n)
	}
	return fmt.Errorf("cannot restore a %s", n.Kind)
}

// finishNode sets a directory's mode, and the original mtime of anything
// when the command never ran.
func (j *Journal) finishNode(p string, n Node) error {
	if n.Kind == "dir" {
		if err := os.Chmod(p, n.Mode); err != nil {
			return err
		}
	}
	if !j.CommandStarted {
		setTimes(p, n.MTime)
	}
	return nil
}

// setTimes sets p's mtime (and atime) without following a symlink.
func setTimes(p string, mtimeNS int64) {
	ts := unix.NsecToTimespec(mtimeNS)
	_ = unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW)
}

// keep copies e's original out of the journal into the kept dir (the
// journal is about to be removed) and returns the warning for it.
func (j *Journal) keep(e Entry, why string) string {
	msg := fmt.Sprintf("left %s alone: %s", e.Path, why)
	if e.Orig.Kind == "absent" {
		return msg + " (it did not exist before the run)"
	}
	if e.Orig.Kind == "dir" {
		return msg + "; the original directory is at " + j.trashPath(e.Orig)
	}
	dst := filepath.Join(filepath.Dir(j.dir), KeptName, j.ID, filepath.FromSlash(e.Path))
	if _, err := os.Lstat(dst); err == nil {
		return msg + "; its original is kept at " + dst
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return msg + "; its original could not be kept: " + err.Error()
	}
	tmp := dst + ".tmp"
	_ = os.RemoveAll(tmp)
	if err := j.materialize(tmp, e.Orig); err != nil {
		return msg + "; its original could not be kept: " + err.Error()
	}
	_ = j.finishNode(tmp, e.Orig)
	if err := os.Rename(tmp, dst); err != nil {
		return msg + "; its original could not be kept: " + err.Error()
	}
	return msg + "; its original is kept at " + dst
}

// remove deletes the journal: the manifest first (after that a replay has
// nothing to do), then the blobs.
func (j *Journal) remove() error {
	if err := j.removeTrash(); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(j.dir, manifest)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	_ = syncDir(j.dir)
	return os.RemoveAll(j.dir)
}

// markCommandStarted records, durably, that the command is about to run.
func (j *Journal) markCommandStarted() error {
	j.CommandStarted = true
	return j.writeManifest()
}

// IncompleteError is a restore that could not put everything back: the
// journal is kept, and each problem says what is missing and where its
// original is.
type IncompleteError struct {
	Journal  string
	Problems []string
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("could not restore everything: %s; the journal is kept in %s: fix the cause and run `shadow gc`", strings.Join(e.Problems, "; "), e.Journal)
}

// Describe is a one-line account of a replay, for stderr.
func (r Recovered) Describe() string {
	if r.Journal == nil {
		return ""
	}
	j := r.Journal
	s := fmt.Sprintf("restored the checkout from an interrupted in-place run (hypothesis %q, pid %d, %s): %d path(s) put back",
		j.Hyp, j.PID, j.Started.Local().Format(time.DateTime), len(r.Restored))
	if len(r.Restored) > 0 {
		s += ": " + strings.Join(r.Restored, ", ")
	}
	return s
}
