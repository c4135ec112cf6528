package stale

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/shadow-dev/shadow/engine/checkout"
)

// The lower directory of every overlay is the live checkout: a change made
// to it while hypotheses run reaches them half-way (overlayfs promises
// nothing about it). A run watches the checkout's source directories
// (inotify(7) on Linux) and reports the source paths that changed as stale.
//
// What a changed path is compared against: the checkout as it was when
// the watch on the path's directory was set. Every watch is set before the
// first hypothesis starts (Start returns only then), so every
// hypothesis starts from that state, and an edit made while the watches
// are still being set up either lands in a directory already watched (an
// event: stale) or in one not watched yet, before any hypothesis could
// read the file (every hypothesis sees the edited file from its start: not
// a change during the run). A directory's watch is set before the
// directory is read, so a subdirectory created at any point is either in
// the listing or an event.
//
// Which changes count, from what the events can prove:
//   - a name created, removed or renamed, or content written in place
//     (IN_CREATE, IN_DELETE, IN_MOVED_FROM/TO, IN_MODIFY): changed, even
//     when the final bytes match, since a hypothesis may have read the
//     file between the truncate and the last write, and the bytes a rename
//     replaced can no longer be read to compare. A file created during
//     the run and gone again before its end is not a change (the end
//     state matches the start, as before).
//   - metadata alone (IN_ATTRIB: touch, chown, a link count): not a
//     change, whatever the file's size, except a tracked file whose
//     executable bit now differs from git's index.
//   - the paths the hypotheses write (in-place mode writes them into the
//     checkout and restores them) are compared by content, mode and type
//     against what was read before the watches were set (checkout.ReadOriginals).
//   - the event queue overflowing (IN_Q_OVERFLOW), the watch limit being
//     reached for a directory created during the run, or the checkout's
//     root moving: the run cannot say what changed, and reports "." (the
//     whole checkout) as stale.
//
// Only source paths count: in a git checkout, paths git does not ignore
// (tracked files are never ignored, `git check-ignore`); ignored
// directories are not watched. Outside git, every file outside the usual
// build and cache directories (skipDirs). Writes through a shared mmap(2)
// raise no inotify event and are not seen.

// All is the stale path reported when the run cannot tell which
// paths changed: the whole checkout.
const All = "."

// change kinds, as the events report them.
const (
	chCreate = 1 << iota // a new name (IN_CREATE): it did not exist just before
	chMoveIn             // a name renamed here (IN_MOVED_TO), perhaps over an old one
	chRemove             // the name went away (IN_DELETE, IN_MOVED_FROM)
	chWrite              // content written in place (IN_MODIFY)
	chAttrib             // metadata only (IN_ATTRIB)
)

// pathChange is what the events said about one path.
type pathChange struct {
	first int // the first event's kind
	kinds int // every kind seen
}

// changeLog collects the events of one run by path.
type changeLog struct {
	paths map[string]*pathChange
	// whole: the run cannot name what changed (overflow, root moved).
	whole bool
}

func newChangeLog() *changeLog { return &changeLog{paths: map[string]*pathChange{}} }

func (l *changeLog) add(rel string, kind int) {
	c := l.paths[rel]
	if c == nil {
		c = &pathChange{first: kind}
		l.paths[rel] = c
	}
	c.kinds |= kind
}

// staleSet turns the collected events into the report's stale paths.
// known holds the paths whose start state was read (the hypotheses'
// targets); classify (nil outside git) gives git's index mode of the
// tracked ones among paths and which git ignores.
func (l *changeLog) staleSet(workspace string, known map[string]checkout.FileState, exclude []string, classify func([]string) (map[string]string, map[string]bool)) []string {
	var cand []string
	for p := range l.paths {
		if !excluded(workspace, p, exclude) {
			cand = append(cand, p)
		}
	}
	sort.Strings(cand)
	var tracked map[string]string
	if classify != nil && len(cand) > 0 {
		var ignored map[string]bool
		tracked, ignored = classify(cand)
		kept := cand[:0]
		for _, p := range cand {
			if _, ok := tracked[p]; ok || !ignored[p] {
				kept = append(kept, p)
			}
		}
		cand = kept
	}
	stale := []string{}
	for _, p := range cand {
		c := l.paths[p]
		if o, ok := known[p]; ok {
			if !checkout.SameState(o, checkout.ReadState(workspace, p)) {
				stale = append(stale, p)
			}
			continue
		}
		if c.first == chCreate && !exists(workspace, p) {
			continue // created and removed again during the run
		}
		if c.kinds == chAttrib {
			if m, ok := tracked[p]; ok && exeChanged(workspace, p, m) {
				stale = append(stale, p)
			}
			continue
		}
		stale = append(stale, p)
	}
	if l.whole {
		stale = append(stale, All)
	}
	sort.Strings(stale)
	return stale
}

// exeChanged: a tracked regular file's executable bit differs from git's
// index mode.
func exeChanged(workspace, rel, indexMode string) bool {
	fi, err := os.Lstat(filepath.Join(workspace, filepath.FromSlash(rel)))
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return (fi.Mode().Perm()&0o100 != 0) != (indexMode == "100755")
}

func exists(workspace, rel string) bool {
	_, err := os.Lstat(filepath.Join(workspace, filepath.FromSlash(rel)))
	return err == nil
}

// excluded: rel lies in one of the exclude directories (absolute), or in
// the checkout's .git directory.
func excluded(workspace, rel string, exclude []string) bool {
	if rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return true
	}
	for _, e := range exclude {
		r, err := filepath.Rel(workspace, e)
		if err != nil || r == "." || strings.HasPrefix(r, "..") {
			continue
		}
		r = filepath.ToSlash(r)
		if rel == r || strings.HasPrefix(rel, r+"/") {
			return true
		}
	}
	return false
}

// Watch follows the checkout's sources during one run.
type Watch interface {
	// Stop ends the watch and returns the source paths that changed
	// since it started, sorted. known: the start state of the paths the
	// hypotheses write (checkout.ReadOriginals), compared by content.
	Stop(known map[string]checkout.FileState) []string
}

// scanWatch is the fallback where no watch can be set (not Linux, or the
// inotify watch limit is too low for the checkout): a scan at start and a
// rescan at the end, compared by stat and content.
type scanWatch struct {
	st        *SourceState
	workspace string
}

func (s scanWatch) Stop(known map[string]checkout.FileState) []string {
	changed := s.st.Changed(s.workspace)
	kept := changed[:0]
	for _, p := range changed {
		if o, ok := known[p]; ok && checkout.SameState(o, checkout.ReadState(s.workspace, p)) {
			continue
		}
		kept = append(kept, p)
	}
	return kept
}

// resolvePaths resolves symlinks in the workspace and exclude paths: a
// watch (and a walk) does not follow a symlink, and a workspace reached
// through one is still the directory it names.
func resolvePaths(workspace string, exclude []string) (string, []string) {
	if r, err := filepath.EvalSymlinks(workspace); err == nil {
		workspace = r
	}
	out := make([]string, len(exclude))
	for i, e := range exclude {
		out[i] = e
		if r, err := filepath.EvalSymlinks(e); err == nil {
			out[i] = r
		}
	}
	return workspace, out
}
