//go:build linux || darwin

package copy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// CopyStats says what making one copy cost.
type CopyStats struct {
	Files, Dirs, Links int
	Bytes              int64 // size of the regular files copied
	Cloned             int   // files whose blocks are shared with the original (no data copied)
	Skipped            []string
	Unreadable         []string // files the user cannot read: left out of the copy
	Duration           time.Duration
}

// stamp is what the copy held at a path before the command ran; a path
// whose stamp differs afterwards was written by the command.
type stamp struct {
	mode  fs.FileMode
	size  int64
	mtime int64 // ns
	link  string
}

func stampOf(fi fs.FileInfo, link string) stamp {
	return stamp{mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano(), link: link}
}

// copyOpts says what a tree copy leaves out.
type copyOpts struct {
	// skip: workspace-relative '/'-separated globs (path.Match) of
	// directories and files left out; a glob without '/' matches a name
	// at any depth.
	skip []string
	// exclude: absolute paths left out silently (shadow's own state when
	// it lies inside the workspace).
	exclude []string
	// noOwners: as root, leave the copy root's instead of giving each
	// file the checkout's owner. A sealed command runs as uid 0 without
	// capabilities (landlock.dropCaps), so it could not write a file of
	// another owner (a checkout of uid 1000 in a container run as root),
	// and git refuses a repository whose owner is not the caller's
	// ("dubious ownership").
	noOwners bool
	// deletes: workspace-relative paths the hypothesis deletes; never
	// copied, which is cheaper than copying then deleting them.
	deletes map[string]bool
	// workers copy files at once: copying is mostly waiting for the disk
	// or for metadata updates, so more workers than CPUs pay off.
	workers int
}

// copier copies one workspace tree. The walk (directories, symlinks,
// stamps) is one goroutine; file data goes to workers.
type copier struct {
	src, dst string
	opts     copyOpts
	root     bool // running as root: keep owners

	stamps map[string]stamp
	dirs   []string        // relative dirs made, for their attributes at the end
	refs   []refCandidate  // files that may hold the checkout's path
	venvs  map[string]bool // directories holding a pyvenv.cfg
	st     CopyStats

	jobs    chan fileJob
	wg      sync.WaitGroup
	bytes   atomic.Int64
	cloned  atomic.Int64
	mu      sync.Mutex
	unread  []string
	firstEr error
	noClone atomic.Bool // FICLONE refused once: the filesystem cannot share blocks
}

type fileJob struct {
	rel string
	fi  fs.FileInfo
}

// copyTree copies src to dst (which must not exist), keeping modes, owners
// (as root) and nanosecond mtimes, so tools comparing mtimes (make, cargo)
// see the same tree. Absolute symlinks into src are pointed at the copy's
// counterpart: in overlay mode the same path names the hypothesis's view.
func copyTree(src, dst string, opts copyOpts) (*copier, error) {
	start := time.Now()
	if opts.workers <= 0 {
		opts.workers = 8
	}
	c := &copier{src: src, dst: dst, opts: opts, root: os.Geteuid() == 0 && !opts.noOwners, stamps: map[string]stamp{}, venvs: map[string]bool{}, jobs: make(chan fileJob, 256)}
	fi, err := os.Stat(src)
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(dst, 0o700); err != nil {
		return nil, fmt.Errorf("create the copy %s: %w", dst, err)
	}
	for i := 0; i < opts.workers; i++ {
		c.wg.Add(1)
		go c.worker()
	}
	walkErr := c.walkDir("", fi)
	close(c.jobs)
	c.wg.Wait()
	if walkErr == nil {
		walkErr = c.firstEr
	}
	// A file left out is no deletion by the command.
	for _, rel := range c.unread {
		delete(c.stamps, rel)
	}
	// Directory attributes last, deepest first: creating entries changed
	// their mtimes, and a read-only directory could not be filled.
	sort.Slice(c.dirs, func(i, j int) bool { return strings.Count(c.dirs[i], "/") > strings.Count(c.dirs[j], "/") })
	for _, d := range c.dirs {
		if fi, err := os.Lstat(c.srcPath(d)); err == nil {
			keepAttrs(c.dstPath(d), fi, c.root)
		}
	}
	keepAttrs(dst, fi, c.root)
	c.st.Bytes, c.st.Cloned = c.bytes.Load(), int(c.cloned.Load())
	sort.Strings(c.unread)
	c.st.Unreadable = c.unread
	c.st.Duration = time.Since(start)
	return c, walkErr
}

func (c *copier) srcPath(rel string) string { return filepath.Join(c.src, filepath.FromSlash(rel)) }
func (c *copier) dstPath(rel string) string { return filepath.Join(c.dst, filepath.FromSlash(rel)) }

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// skipped reports whether rel is left out by --copy-skip.
func (c *copier) skipped(rel string) bool {
	return matchAny(c.opts.skip, rel)
}

// matchAny: a glob with '/' matches the whole relative path, one without
// matches the last element at any depth.
func matchAny(globs []string, rel string) bool {
	base := path.Base(rel)
	for _, g := range globs {
		g = strings.Trim(g, "/")
		subject := base
		if strings.Contains(g, "/") {
			subject = rel
		}
		if ok, _ := path.Match(g, subject); ok {
			return true
		}
	}
	return false
}

func (c *copier) excluded(rel string) bool {
	p := c.srcPath(rel)
	for _, e := range c.opts.exclude {
		if p == e {
			return true
		}
	}
	return false
}

func (c *copier) walkDir(rel string, dfi fs.FileInfo) error {
	if rel != "" {
		if err := os.Mkdir(c.dstPath(rel), dfi.Mode().Perm()|0o700); err != nil {
			return fmt.Errorf("copy %s: %w", rel, err)
		}
		c.dirs = append(c.dirs, rel)
		c.st.Dirs++
	}
	ents, err := os.ReadDir(c.srcPath(rel))
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			c.noteUnreadable(rel + "/")
			return nil
		}
		return fmt.Errorf("copy %s: %w", c.srcPath(rel), err)
	}
	for _, e := range ents {
		if e.Name() == "pyvenv.cfg" {
			c.venvs[rel] = true
		}
	}
	for _, e := range ents {
		r := join(rel, e.Name())
		if c.excluded(r) || c.opts.deletes[r] {
			continue
		}
		if c.skipped(r) {
			c.st.Skipped = append(c.st.Skipped, r)
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // gone since the listing
		}
		c.noteRef(rel, e.Name(), fi)
		switch {
		case fi.IsDir():
			if r == ".git/objects" {
				if err := c.borrowObjects(r, fi); err != nil {
					return err
				}
				continue
			}
			if err := c.walkDir(r, fi); err != nil {
				return err
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			if err := c.copyLink(r, fi); err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			c.stamps[r] = stampOf(fi, "")
			c.st.Files++
			c.jobs <- fileJob{rel: r, fi: fi}
		default:
			// Sockets, fifos and devices are not data a test reads: a
			// copy of a socket would be a dead one anyway.
		}
	}
	return nil
}

func (c *copier) copyLink(rel string, fi fs.FileInfo) error {
	target, err := os.Readlink(c.srcPath(rel))
	if err != nil {
		return nil
	}
	if t, ok := c.rebase(rel, target); ok {
		target = t
	}
	to := c.dstPath(rel)
	if err := os.Symlink(target, to); err != nil {
		return fmt.Errorf("copy %s: %w", rel, err)
	}
	keepAttrs(to, fi, c.root)
	c.stamps[rel] = stampOf(fi, target)
	c.st.Links++
	return nil
}

// rebase maps a symlink's target that names a path inside the workspace
// by its absolute path to the copy's counterpart, and a relative one that
// climbs out of the workspace to the absolute path it meant (from the copy
// it would name a path beside the copy).
func (c *copier) rebase(rel, p string) (string, bool) {
	if !filepath.IsAbs(p) {
		abs := filepath.Join(filepath.Dir(c.srcPath(rel)), p)
		if r, err := filepath.Rel(c.src, abs); err == nil && (r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator))) {
			return abs, true
		}
		return p, false
	}
	if p == c.src {
		return c.dst, true
	}
	if rest, ok := strings.CutPrefix(p, c.src+string(filepath.Separator)); ok {
		return filepath.Join(c.dst, rest), true
	}
	return p, false
}

func (c *copier) worker() {
	defer c.wg.Done()
	for j := range c.jobs {
		if err := c.copyOne(j); err != nil {
			c.mu.Lock()
			if c.firstEr == nil {
				c.firstEr = err
			}
			c.mu.Unlock()
		}
	}
}

func (c *copier) copyOne(j fileJob) error {
	to := c.dstPath(j.rel)
	cloned, err := copyFile(c.srcPath(j.rel), to, j.fi, &c.noClone)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			c.noteUnreadable(j.rel)
			return nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil // deleted since the listing: the checkout has none either
		}
		return fmt.Errorf("copy %s: %w", j.rel, err)
	}
	keepAttrs(to, j.fi, c.root)
	c.bytes.Add(j.fi.Size())
	if cloned {
		c.cloned.Add(1)
	}
	return nil
}

func (c *copier) noteUnreadable(rel string) {
	c.mu.Lock()
	c.unread = append(c.unread, rel)
	c.mu.Unlock()
}

// overlay copies the files of a read-only layer (--freeze's copy of the
// sources) over the copy: in overlay mode the layer sits above the
// workspace, so its files win.
func (c *copier) overlay(layer string) error {
	return filepath.WalkDir(layer, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, err := filepath.Rel(layer, p)
		if err != nil || r == "." {
			return err
		}
		rel := filepath.ToSlash(r)
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		to := c.dstPath(rel)
		switch {
		case fi.IsDir():
			if st, err := os.Lstat(to); err == nil && st.IsDir() {
				return nil
			}
			_ = os.RemoveAll(to)
			return os.Mkdir(to, fi.Mode().Perm()|0o700)
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return nil
			}
			_ = os.RemoveAll(to)
			if err := os.Symlink(target, to); err != nil {
				return err
			}
			c.stamps[rel] = stampOf(fi, target)
		case fi.Mode().IsRegular():
			_ = os.RemoveAll(to)
			if _, err := copyFile(p, to, fi, &c.noClone); err != nil {
				return fmt.Errorf("copy %s from %s: %w", rel, layer, err)
			}
			keepAttrs(to, fi, c.root)
			c.stamps[rel] = stampOf(fi, "")
		}
		return nil
	})
}

// restamp records what the copy holds at rel now (after the hypothesis's
// own files are written), or that it holds nothing.
func (c *copier) restamp(rel string) {
	fi, err := os.Lstat(c.dstPath(rel))
	if err != nil {
		prefix := rel + "/"
		for k := range c.stamps {
			if k == rel || strings.HasPrefix(k, prefix) {
				delete(c.stamps, k)
			}
		}
		return
	}
	link := ""
	if fi.Mode()&fs.ModeSymlink != 0 {
		link, _ = os.Readlink(c.dstPath(rel))
	}
	if !fi.IsDir() {
		c.stamps[rel] = stampOf(fi, link)
	}
}

// changed lists the files and symlinks the command created, changed or
// deleted in the copy: by size, mode, mtime and link target against the
// stamps taken before it ran. A command that rewrote a file keeping its
// size and mtime to the nanosecond goes unseen: copy mode guards against
// accidents, not against a hostile command.
func (c *copier) changed() []string {
	seen := map[string]bool{}
	var out []string
	_ = filepath.WalkDir(c.dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == c.dst {
			return nil
		}
		r, _ := filepath.Rel(c.dst, p)
		rel := filepath.ToSlash(r)
		if d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		link := ""
		if fi.Mode()&fs.ModeSymlink != 0 {
			link, _ = os.Readlink(p)
		}
		seen[rel] = true
		if old, ok := c.stamps[rel]; !ok || old != stampOf(fi, link) {
			out = append(out, rel)
		}
		return nil
	})
	for rel := range c.stamps {
		if !seen[rel] {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}
