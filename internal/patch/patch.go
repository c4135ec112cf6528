// Package patch applies a unified diff (as `git diff` or `diff -u` prints
// it) to files it is given, without writing anything: the caller gets the
// new contents. go-gitdiff reads the text; this package places the hunks
// (an offset may move, the context may not) and orchestrates git's
// renames, copies, deletes and mode changes the way git apply does.
package patch

import (
	"fmt"
	"os"
)

// Change is the result of a patch on one file.
type Change struct {
	Path    string // as named by the patch, a/ or b/ prefix removed
	Content []byte // the file's new content (nil when Deleted)
	Deleted bool
	// Mode holds the permission bits of a git "new file mode" or "new mode"
	// line, 0 when the patch names none (the caller keeps the existing mode,
	// or From's for a rename or copy).
	Mode os.FileMode
	// From is the source of a git rename or copy whose target is Path, ""
	// otherwise. A rename also yields a Deleted change for From.
	From string
}

// ReadFunc returns the current content of a path as the patch names it
// (exists=false if absent).
type ReadFunc func(path string) (content []byte, exists bool, err error)

// Apply applies a unified diff to the files it names. read's errors are
// returned wrapped with the path. Nothing is written.
//
// Sections that name the same path apply in sequence (concatenated diffs).
// The source of a git rename or copy is read as it was before the patch,
// as git apply does: git diff prints a copy's source modified in place
// before or after the copy, and swaps as two renames, so the order of those
// sections must not matter. Only a source that the patch itself created
// earlier (concatenated diffs again) is read from the patch's result.
func Apply(patch string, read ReadFunc) ([]Change, error) {
	files, err := parse(patch)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("patch holds no file diff")
	}
	type orig struct {
		content []byte
		exists  bool
	}
	origs := map[string]orig{}
	readOrig := func(p string) ([]byte, bool, error) {
		if o, ok := origs[p]; ok {
			return o.content, o.exists, nil
		}
		c, ok, err := read(p)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", p, err)
		}
		origs[p] = orig{c, ok}
		return c, ok, nil
	}
	// Paths a rename moves away may be created anew by another section
	// (a swap, or a new file under the old name), in either order.
	leaving := map[string]bool{}
	for _, f := range files {
		if f.rename {
			leaving[f.from] = true
		}
	}
	state := map[string]*Change{}
	created := map[string]bool{} // written by a creation, rename or copy
	renamed := map[string]string{}
	var order, deferred []string
	set := func(ch *Change) {
		if _, seen := state[ch.Path]; !seen {
			order = append(order, ch.Path)
		}
		state[ch.Path] = ch
	}
	for _, f := range files {
		if f.from == "" {
			var content []byte
			var exists bool
			if cur, seen := state[f.path]; seen {
				content, exists = cur.Content, !cur.Deleted
			} else if !(f.create && leaving[f.path]) {
				if content, exists, err = readOrig(f.path); err != nil {
					return nil, err
				}
			}
			ch, err := f.apply(content, exists)
			if err != nil {
				return nil, err
			}
			if f.create {
				created[f.path] = true
			}
			set(ch)
			continue
		}

		verb := "copies"
		if f.rename {
			verb = "renames"
			if to, twice := renamed[f.from]; twice {
				return nil, fmt.Errorf("patch renames %s twice (to %s and %s)", f.from, to, f.path)
			}
			renamed[f.from] = f.path
		}
		content, exists, err := readOrig(f.from)
		if err != nil {
			return nil, err
		}
		fromPatch := false
		if !exists {
			cur, seen := state[f.from]
			if !seen || cur.Deleted {
				return nil, fmt.Errorf("patch %s %s, but it does not exist", verb, f.from)
			}
			content, fromPatch = cur.Content, true
		}
		if cur, seen := state[f.path]; seen {
			if !cur.Deleted {
				return nil, fmt.Errorf("patch %s %s to %s, but the patch also writes %s", verb, f.from, f.path, f.path)
			}
		} else if !leaving[f.path] {
			_, exists, err := readOrig(f.path)
			if err != nil {
				return nil, err
			}
			if exists {
				return nil, fmt.Errorf("patch %s %s to %s, but %s already exists", verb, f.from, f.path, f.path)
			}
		}
		ch, err := f.apply(content, true)
		if err != nil {
			return nil, err
		}
		ch.From = f.from
		created[f.path] = true
		set(ch)
		if f.rename {
			if fromPatch {
				set(&Change{Path: f.from, Deleted: true})
			} else {
				deferred = append(deferred, f.from)
			}
		}
	}
	// A renamed source is gone unless another section created it anew.
	for _, p := range deferred {
		cur, seen := state[p]
		switch {
		case !seen:
			set(&Change{Path: p, Deleted: true})
		case !created[p] || cur.Deleted:
			return nil, fmt.Errorf("patch renames %s to %s, but another section also changes or deletes %s", p, renamed[p], p)
		}
	}
	changes := make([]Change, 0, len(order))
	for _, p := range order {
		changes = append(changes, *state[p])
	}
	return changes, nil
}
