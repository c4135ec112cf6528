package spec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// view is a hypothesis being built: the checkout, overlaid by the base's
// files and deletes, then by the hypothesis's own proposals.
type view struct {
	ctx     context.Context // resolution stops once it is done
	ws      string
	hyp     string
	files   map[string]File
	deletes map[string]bool
	// fileIdx and delIdx index files' and deletes' paths by directory
	// (pathindex.go): setFile, dropFile, setDelete and dropDelete keep
	// them.
	fileIdx, delIdx pathIndex
	// common marks the paths whose current file or delete came from the
	// spec's common part (inCommon while it is applied); the hypothesis's
	// own write or delete of such a path makes it its own.
	common   map[string]bool
	inCommon bool
	// commonSnap is each common path as the common part left it (nil: a
	// delete), so a hypothesis's replacement of one can be undone for its
	// judged run.
	commonSnap map[string]*File
	prefix     string // "common." while the common part is applied
	lim        Limits // what one edit may hold (editsource.go)
}

func (v *view) fail(field, format string, args ...any) error {
	return &SpecError{Hyp: v.hyp, Field: v.prefix + field, Msg: fmt.Sprintf(format, args...)}
}

// snapCommon records what the common part left at each of its paths.
func (v *view) snapCommon() {
	v.commonSnap = map[string]*File{}
	for p := range v.common {
		if f, ok := v.files[p]; ok {
			v.commonSnap[p] = &f
		} else if v.deletes[p] {
			v.commonSnap[p] = nil
		}
	}
}

func (v *view) setFile(f File) {
	if _, ok := v.files[f.Path]; !ok {
		v.fileIdx.add(f.Path)
	}
	v.files[f.Path] = f
}

func (v *view) dropFile(p string) {
	if _, ok := v.files[p]; ok {
		delete(v.files, p)
		v.fileIdx.drop(p)
	}
}

func (v *view) setDelete(p string) {
	if !v.deletes[p] {
		v.deletes[p] = true
		v.delIdx.add(p)
	}
}

func (v *view) dropDelete(p string) {
	if v.deletes[p] {
		delete(v.deletes, p)
		v.delIdx.drop(p)
	}
}

// mark records who set p: the common part or the hypothesis.
func (v *view) mark(p string) {
	if v.inCommon {
		v.common[p] = true
	} else {
		delete(v.common, p)
	}
}

// lstat looks a workspace-relative path up in the checkout; a missing path
// gives (nil, nil).
func (v *view) lstat(p string) (os.FileInfo, error) {
	fi, err := os.Lstat(filepath.Join(v.ws, filepath.FromSlash(p)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return fi, err
}

// checkParents refuses a path whose existing ancestor in the checkout is a
// symlink (writing through it would escape the proposed path) or not a
// directory.
func (v *view) checkParents(p string) string {
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		fi, err := v.lstat(p[:i])
		switch {
		case err != nil:
			return err.Error()
		case fi == nil:
			return "" // the rest does not exist either
		case fi.Mode()&os.ModeSymlink != 0:
			return fmt.Sprintf("parent %q is a symlink", p[:i])
		case !fi.IsDir():
			return fmt.Sprintf("parent %q is not a directory", p[:i])
		}
	}
	return ""
}

// deletedBy returns the base delete that covers p (p itself or an
// ancestor), or "".
func (v *view) deletedBy(p string) string {
	for q := p; ; {
		if v.deletes[q] {
			return q
		}
		i := strings.LastIndexByte(q, '/')
		if i < 0 {
			return ""
		}
		q = q[:i]
	}
}

// checkTarget refuses a path the hypothesis writes as a regular file.
func (v *view) checkTarget(field, p string) error {
	if msg := v.checkParents(p); msg != "" {
		return v.fail(field, "%s", msg)
	}
	fi, err := v.lstat(p)
	switch {
	case err != nil:
		return v.fail(field, "%v", err)
	case fi == nil, fi.Mode().IsRegular(), fi.Mode()&os.ModeSymlink != 0:
		// A symlink target is replaced by a regular file, not followed.
	case fi.IsDir():
		return v.fail(field, "%q is a directory", p)
	default:
		return v.fail(field, "%q is not a regular file", p)
	}
	if q := v.fileIdx.first(p); q != "" {
		return v.fail(field, "%q is a directory in the base (it holds %q)", p, q)
	}
	parent := ""
	ancestors(p, func(d string) {
		if _, ok := v.files[d]; ok {
			parent = d
		}
	})
	if parent != "" {
		return v.fail(field, "parent %q is a file in the base", parent)
	}
	if d := v.deletedBy(p); d != "" && d != p {
		return v.fail(field, "%q is inside %q, which the base deletes", p, d)
	}
	return nil
}

// existingMode is the permission of p in the base or the checkout, else
// 0644 (also for a symlink, which the new file replaces).
func (v *view) existingMode(p string) os.FileMode {
	if f, ok := v.files[p]; ok {
		return f.Mode
	}
	if v.deletedBy(p) == "" {
		if fi, err := v.lstat(p); err == nil && fi != nil && fi.Mode().IsRegular() {
			return fi.Mode().Perm()
		}
	}
	return 0o644
}

func (v *view) write(p string, content []byte, mode os.FileMode) {
	v.dropDelete(p)
	v.setFile(File{Path: p, Content: content, Mode: mode})
	v.mark(p)
}

// remove deletes p (rm -rf) on top of the view.
func (v *view) remove(field, p string) error {
	if msg := v.checkParents(p); msg != "" {
		return v.fail(field, "%s", msg)
	}
	_, inBase := v.files[p]
	v.dropFile(p)
	for _, q := range v.fileIdx.under(p) {
		v.dropFile(q)
		inBase = true
	}
	if d := v.deletedBy(p); d != "" {
		return v.fail(field, "%q does not exist (the base deletes %q)", p, d)
	}
	fi, err := v.lstat(p)
	if err != nil {
		return v.fail(field, "%v", err)
	}
	if fi == nil {
		if inBase {
			return nil // only the base had it: dropping its files is enough
		}
		return v.fail(field, "%q does not exist", p)
	}
	for _, q := range v.delIdx.under(p) {
		v.dropDelete(q) // covered by deleting p
	}
	v.setDelete(p)
	v.mark(p)
	return nil
}

// read serves patch.Apply: the base's version of a file where it has one,
// else the checkout's.
func (v *view) read(p string) ([]byte, bool, error) {
	if msg := checkPath(p); msg != "" {
		return nil, false, errors.New(msg)
	}
	if f, ok := v.files[p]; ok {
		return f.Content, true, nil
	}
	if v.deletedBy(p) != "" {
		return nil, false, nil
	}
	if msg := v.checkParents(p); msg != "" {
		return nil, false, errors.New(msg)
	}
	fi, err := v.lstat(p)
	switch {
	case err != nil:
		return nil, false, err
	case fi == nil:
		return nil, false, nil
	case fi.IsDir():
		return nil, false, errors.New("is a directory")
	case fi.Mode()&os.ModeSymlink != 0:
		return nil, false, errors.New("is a symlink; patching symlinks is not supported")
	case !fi.Mode().IsRegular():
		return nil, false, errors.New("is not a regular file")
	}
	b, err := os.ReadFile(filepath.Join(v.ws, filepath.FromSlash(p)))
	return b, err == nil, err
}

func (v *view) result() Hypothesis {
	h := Hypothesis{Name: v.hyp}
	for p, f := range v.files {
		if v.common[p] {
			h.Common = append(h.Common, f)
		} else {
			h.Files = append(h.Files, f)
		}
	}
	for p := range v.deletes {
		if v.common[p] {
			h.CommonDeletes = append(h.CommonDeletes, p)
		} else {
			h.Deletes = append(h.Deletes, p)
		}
	}
	for p, f := range v.commonSnap {
		switch {
		case v.common[p]:
		case f != nil:
			h.ReplacedCommon = append(h.ReplacedCommon, *f)
		default:
			h.ReplacedCommonDeletes = append(h.ReplacedCommonDeletes, p)
		}
	}
	sort.Slice(h.ReplacedCommon, func(i, j int) bool { return h.ReplacedCommon[i].Path < h.ReplacedCommon[j].Path })
	sort.Strings(h.ReplacedCommonDeletes)
	sort.Slice(h.Files, func(i, j int) bool { return h.Files[i].Path < h.Files[j].Path })
	sort.Slice(h.Common, func(i, j int) bool { return h.Common[i].Path < h.Common[j].Path })
	sort.Strings(h.Deletes)
	sort.Strings(h.CommonDeletes)
	return h
}
