package warm

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// builder fills a new generation's directory.
type builder struct {
	ws      string
	dst     string
	tracked map[string]bool
	// dirs: the permissions and mtime each directory gets once it is
	// filled (made 0700 meanwhile, so it can be written).
	dirs map[string]dirAttr
	// files and bytes: how the layer's counts changed (an update in place
	// does not walk the whole layer again).
	files int
	bytes int64
	// noLinks: symlinks are never taken (the home layer's caches).
	noLinks bool
}

type dirAttr struct {
	perm  fs.FileMode
	mtime time.Time
}

func (b *builder) dstPath(rel string) string { return filepath.Join(b.dst, filepath.FromSlash(rel)) }

// mkParents makes rel's parent directories in the layer, with the
// checkout's modes and mtimes: overlayfs shows the topmost layer's
// attributes for a merged directory.
func (b *builder) mkParents(rel string) error {
	dir := path.Dir(strings.TrimSuffix(rel, "/"))
	if dir == "." {
		return nil
	}
	cur := ""
	for _, part := range strings.Split(dir, "/") {
		cur = path.Join(cur, part)
		if fi, err := os.Lstat(b.dstPath(cur)); err == nil && fi.IsDir() {
			continue
		}
		a := dirAttr{perm: 0o755, mtime: time.Now()}
		if fi, err := os.Lstat(filepath.Join(b.ws, filepath.FromSlash(cur))); err == nil && fi.IsDir() {
			a = dirAttr{perm: fi.Mode().Perm(), mtime: fi.ModTime()}
		}
		if err := b.mkdir(cur, a); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) mkdir(rel string, a dirAttr) error {
	p := b.dstPath(rel)
	if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	if err := os.Mkdir(p, 0o700); err != nil && !os.IsExist(err) {
		return fmt.Errorf("warm layer: make %s: %w", p, err)
	} else if err != nil {
		// One of an earlier generation, with its final mode (Go's module
		// cache is 0555): writable until finish.
		_ = os.Chmod(p, 0o700)
	}
	b.dirs[rel] = a
	return nil
}

// remove drops rel (and what is below it) from the layer.
func (b *builder) remove(rel string) error {
	rel = strings.TrimSuffix(rel, "/")
	delete(b.dirs, rel)
	for k := range b.dirs {
		if strings.HasPrefix(k, rel+"/") {
			delete(b.dirs, k)
		}
	}
	p := b.dstPath(rel)
	if _, err := os.Lstat(p); err != nil {
		return nil
	}
	n, sz := count(p)
	if err := fsutil.RemoveTree(p); err != nil {
		return err
	}
	b.files -= n
	b.bytes -= sz
	return nil
}

// added counts a file or symlink put at to.
func (b *builder) added(to string, err error) error {
	if err != nil {
		return err
	}
	if fi, lerr := os.Lstat(to); lerr == nil {
		b.files++
		if fi.Mode().IsRegular() {
			b.bytes += fi.Size()
		}
	}
	return nil
}

// cloneOld links one root of the previous generation into the new one.
// Its files are never written in place, so sharing inodes is safe; a file
// that became tracked is left out.
func (b *builder) cloneOld(oldDir, root string) error {
	if err := b.mkParents(root); err != nil {
		return err
	}
	top := filepath.Join(oldDir, filepath.FromSlash(strings.TrimSuffix(root, "/")))
	return filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		r, _ := filepath.Rel(oldDir, p)
		rel := filepath.ToSlash(r)
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		switch {
		case fi.IsDir():
			return b.mkdir(rel, dirAttr{perm: fi.Mode().Perm(), mtime: fi.ModTime()})
		case b.tracked[rel]:
			return nil
		}
		to := b.dstPath(rel)
		switch {
		case fi.Mode().IsRegular():
			if os.Link(p, to) != nil {
				return b.added(to, copyFile(p, to, fi))
			}
			return b.added(to, nil)
		case fi.Mode()&fs.ModeSymlink != 0:
			return b.added(to, copyLink(p, to, fi))
		}
		return nil
	})
}

// take puts one taken root of the baseline's upper dir into the layer:
// directories, regular files without set-id bits and symlinks that stay
// inside the workspace; a whiteout below it removes that path; an opaque
// directory replaces what the layer held there. Everything else (devices,
// fifos, sockets, tracked paths) is left out.
func (b *builder) take(upper, root string) error {
	if err := b.mkParents(root); err != nil {
		return err
	}
	top := filepath.Join(upper, filepath.FromSlash(strings.TrimSuffix(root, "/")))
	return filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		r, _ := filepath.Rel(upper, p)
		rel := filepath.ToSlash(r)
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		to := b.dstPath(rel)
		switch {
		case isWhiteout(p, fi):
			return b.remove(rel)
		case fi.IsDir():
			if isOpaque(p) {
				if err := b.remove(rel); err != nil {
					return err
				}
			}
			return b.mkdir(rel, dirAttr{perm: fi.Mode().Perm(), mtime: fi.ModTime()})
		case b.tracked[rel]:
			return nil
		case fi.Mode().IsRegular():
			if fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
				return nil
			}
			if err := b.remove(rel); err != nil {
				return err
			}
			return b.added(to, place(p, to, fi))
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil || b.noLinks || !insideLink(b.ws, rel, target) {
				return nil
			}
			if err := b.remove(rel); err != nil {
				return err
			}
			return b.added(to, copyLink(p, to, fi))
		}
		return nil
	})
}

// finish gives every directory its permissions and mtime, deepest first
// (making an entry in a directory changes its mtime).
func (b *builder) finish() {
	rels := make([]string, 0, len(b.dirs))
	for r := range b.dirs {
		rels = append(rels, r)
	}
	sort.Slice(rels, func(i, j int) bool { return strings.Count(rels[i], "/") > strings.Count(rels[j], "/") })
	for _, r := range rels {
		a := b.dirs[r]
		p := b.dstPath(r)
		_ = os.Chmod(p, a.perm) // fsutil.RemoveTree copes with unwritable dirs
		_ = os.Chtimes(p, a.mtime, a.mtime)
	}
}

// count is the regular files and symlinks at or under p, and their bytes.
func count(p string) (files int, bytes int64) {
	_ = filepath.WalkDir(p, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		files++
		if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() {
			bytes += fi.Size()
		}
		return nil
	})
	return files, bytes
}

// place moves a file of the upper dir into the layer: a hard link where
// the file has no other name (the upper dir is removed after the run, so
// the layer then holds the only one) and its overlay xattrs can be
// stripped, else a copy, which carries none.
func place(from, to string, fi fs.FileInfo) error {
	if nlink(fi) == 1 {
		if os.Link(from, to) == nil {
			if stripOverlayXattrs(to) {
				return nil
			}
			_ = os.Remove(to)
		}
	}
	return copyFile(from, to, fi)
}

// copyFile copies a regular file with its permissions (no set-id bits)
// and its mtime (make and cargo compare them).
func copyFile(from, to string, fi fs.FileInfo) error {
	in, err := os.Open(from)
	if err != nil {
		return nil // unreadable: left out
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("warm layer: create %s: %w", to, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(to)
		return fmt.Errorf("warm layer: copy %s: %w", from, err)
	}
	if err := out.Close(); err != nil {
		return err
	}
	_ = os.Chmod(to, fi.Mode().Perm())
	return os.Chtimes(to, fi.ModTime(), fi.ModTime())
}

func copyLink(from, to string, fi fs.FileInfo) error {
	target, err := os.Readlink(from)
	if err != nil {
		return nil
	}
	if err := os.Symlink(target, to); err != nil {
		return fmt.Errorf("warm layer: symlink %s: %w", to, err)
	}
	setLinkTime(to, fi.ModTime())
	return nil
}
