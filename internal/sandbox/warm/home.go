package warm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// The home layer: the caches a build writes outside the workspace (Go's
// build and module caches, npm's, pip's, cargo's registry and git
// checkouts, XDG_CACHE_HOME in general), kept per workspace beside its
// warm layer and fed by the same rule: only the no-edit baseline of a run
// that ran to its end, on a checkout that did not change meanwhile
// (docs/modes.md, "The home layer"). A candidate's writes to those caches
// stay in its own upper dir (overlay) or its own copy's caches (copy
// mode) and go with it; the user's real caches are never written.
//
// Two layouts, one per mode, each a layer of its own:
//
//   - HomeOverlay: a generation mirrors absolute paths (gen-N/root/.cache/
//     go-build/…); the overlay sandbox stacks gen-N/T between the real
//     directory T and the hypothesis's upper for every sealed directory T
//     ($HOME, a cache outside it). Only the cache directories the job's
//     environment names (HomeCaches) are taken from the baseline's upper;
//     what it wrote anywhere else in $HOME is thrown away, as every write
//     there always was.
//   - HomeCopy: a generation holds the caches copy mode points a sealed
//     command at (go-build, xdg, npm: landlock.ScratchEnv's names); each
//     job gets a copy of it as its own caches, and the baseline's caches,
//     complete, become the next generation.

// HomeKind names a home layer's layout.
type HomeKind string

const (
	HomeOverlay HomeKind = "overlay"
	HomeCopy    HomeKind = "copy"
)

// HomeDir is where the home layers of every workspace live under a state
// root: beside the warm layers, laid out as they are, so GC bounds and
// removes them the same way (`shadow gc` runs it on both).
func HomeDir(stateRoot string) string { return filepath.Join(stateRoot, "warm-home") }

// homeKey is the directory of ws's home layer of kind under root.
func homeKey(root, ws string, kind HomeKind) string {
	return keyDir(root, ws+"\x00"+string(kind))
}

// AcquireHome holds the current generation of ws's home layer of kind for
// a run. The error is a *Skipped when there is none usable.
func AcquireHome(root, ws string, kind HomeKind) (*Layer, error) {
	kd := homeKey(root, ws, kind)
	for try := 0; try < 3; try++ {
		m, err := readMeta(kd)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Skipped{"no home layer yet"}
		}
		if err != nil {
			return nil, &Skipped{fmt.Sprintf("unreadable, rebuilt by the next baseline: %v", err)}
		}
		switch {
		case m.Format != Format:
			return nil, &Skipped{fmt.Sprintf("dropped: format %d, this shadow writes %d", m.Format, Format)}
		case m.Workspace != ws:
			return nil, &Skipped{"dropped: built for " + m.Workspace}
		case m.Updating:
			return nil, &Skipped{"being updated by another run's baseline (or an update was cut short)"}
		}
		rel, err := flock(genLock(kd, m.Generation), false, false)
		if err != nil {
			return nil, fmt.Errorf("home layer: lock generation %d in %s: %w", m.Generation, kd, err)
		}
		dir := filepath.Join(kd, genName(m.Generation))
		if now, err := readMeta(kd); err != nil || now.Generation != m.Generation || now.Updating {
			rel()
			continue
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			rel()
			continue
		}
		now := time.Now()
		if err := os.Chtimes(filepath.Join(kd, usedName), now, now); errors.Is(err, fs.ErrNotExist) {
			_ = os.WriteFile(filepath.Join(kd, usedName), nil, 0o600)
		}
		return &Layer{Dir: dir, Meta: *m, rel: rel}, nil
	}
	return nil, &Skipped{"replaced while this run started (used by the next one)"}
}

// NewHomeHarvest makes a harvest for ws's home layer of kind: Upper is
// where the baseline job leaves its cache writes (Job.KeepHome).
func NewHomeHarvest(root, ws string, kind HomeKind) (*Harvest, error) {
	return newHarvest(homeKey(root, ws, kind))
}

// HomeCaches are the cache directories a job's environment names, as
// absolute, resolved paths, topmost only (one inside another is covered
// by it). The defaults are the tools' own: Go's os.UserCacheDir and
// GOPATH, npm's ~/.npm, pip's XDG cache, cargo's ~/.cargo.
func HomeCaches(env []string) []string {
	get := func(k string) string {
		v := ""
		for _, kv := range env {
			if rest, ok := strings.CutPrefix(kv, k+"="); ok {
				v = rest
			}
		}
		return v
	}
	home := get("HOME")
	abs := func(p string) string {
		if p == "" || !filepath.IsAbs(p) {
			return ""
		}
		return filepath.Clean(p)
	}
	under := func(base, rel string) string {
		if base = abs(base); base == "" {
			return ""
		}
		return filepath.Join(base, rel)
	}
	xdg := abs(get("XDG_CACHE_HOME"))
	if xdg == "" {
		xdg = under(home, ".cache")
	}
	gopath := get("GOPATH")
	if i := strings.IndexByte(gopath, ':'); i >= 0 {
		gopath = gopath[:i]
	}
	if abs(gopath) == "" {
		gopath = under(home, "go")
	}
	modcache := abs(get("GOMODCACHE"))
	if modcache == "" {
		modcache = under(gopath, "pkg/mod")
	}
	npm := abs(get("npm_config_cache"))
	if npm == "" {
		npm = abs(get("NPM_CONFIG_CACHE"))
	}
	if npm == "" {
		npm = under(home, ".npm")
	}
	cargo := abs(get("CARGO_HOME"))
	if cargo == "" {
		cargo = under(home, ".cargo")
	}
	var out []string
	for _, p := range []string{
		xdg, abs(get("GOCACHE")), modcache, npm, abs(get("PIP_CACHE_DIR")),
		under(cargo, "registry"), under(cargo, "git"),
	} {
		if p == "" || p == "/" {
			continue
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		out = append(out, p)
	}
	return topmostAbs(out)
}

// topmostAbs keeps the absolute paths no other one contains, sorted.
func topmostAbs(ps []string) []string {
	sort.Strings(ps)
	var out []string
	for _, p := range ps {
		if len(out) > 0 && (out[len(out)-1] == p || strings.HasPrefix(p, out[len(out)-1]+"/")) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// relAbs is an absolute path as a layer's relative one ("root/.cache").
func relAbs(p string) string { return strings.TrimPrefix(filepath.ToSlash(filepath.Clean(p)), "/") }

// buildHome fills dst with the caches of a baseline's harvested tree (a
// mirror of absolute paths, as the overlay sandbox leaves the uppers of
// $HOME and of the caches outside it): directories and regular files
// without set-id bits only. A symlink is never taken (a cache needs none,
// and one is a way out of wherever it is read), nor a device, fifo or
// socket; a whiteout removes the path from the layer.
func (b *builder) takeCaches(tree string, caches []string) error {
	for _, c := range caches {
		r := relAbs(c)
		if _, err := os.Lstat(filepath.Join(tree, filepath.FromSlash(r))); err != nil {
			continue
		}
		if err := b.take(tree, r+"/"); err != nil {
			return err
		}
	}
	return nil
}

// UpdateHome makes the next generation of ws's home layer of kind from
// what a no-edit baseline wrote (tree: its harvest's Upper). HomeOverlay
// merges the current generation with the caches of tree named by caches
// (HomeCaches of the baseline's environment); HomeCopy takes tree, the
// baseline's caches seeded from the generation it started with, whole.
// Only the caller decides that the baseline may feed the layer (it ran to
// its end, on a checkout that did not change, with no sibling able to
// reach it): this function only takes what the rule allows of its files.
func UpdateHome(root, ws string, kind HomeKind, tree string, caches []string, runID, tool string) (*Meta, error) {
	kd := homeKey(root, ws, kind)
	if err := os.MkdirAll(kd, 0o700); err != nil {
		return nil, fmt.Errorf("home layer: %w", err)
	}
	release, err := flock(filepath.Join(kd, updateLock), true, false)
	if err != nil {
		return nil, fmt.Errorf("home layer: lock %s: %w", kd, err)
	}
	defer release()
	old, _ := readMeta(kd)
	if old != nil && (old.Format != Format || old.Workspace != ws || old.Updating) {
		old = nil
	}
	if _, err := os.Lstat(tree); err != nil {
		return noCaches(kd, ws, old, runID, tool)
	}
	if kind == HomeCopy {
		return commitTree(kd, ws, tree, old, nil, runID, tool)
	}
	var held []string
	for _, c := range caches {
		if _, err := os.Lstat(filepath.Join(tree, filepath.FromSlash(relAbs(c)))); err == nil {
			held = append(held, c)
		}
	}
	if len(held) == 0 {
		return noCaches(kd, ws, old, runID, tool)
	}
	return mergeHome(kd, ws, tree, held, old, runID, tool)
}

// mergeHome makes the next generation of the home layer at kd from the
// current one (old; nil: none) and the caches held of tree, in place
// when no run holds the current one, else as a copy of it. The caller
// holds the update lock.
func mergeHome(kd, ws, tree string, held []string, old *Meta, runID, tool string) (*Meta, error) {
	if old != nil {
		if rel, err := flock(genLock(kd, old.Generation), true, true); err == nil {
			defer rel()
			return homeInPlace(kd, ws, tree, held, old, runID, tool)
		}
	}
	tmp, err := os.MkdirTemp(kd, tmpPrefix)
	if err != nil {
		return nil, fmt.Errorf("home layer: %w", err)
	}
	b := &builder{ws: "/", dst: tmp, dirs: map[string]dirAttr{}, noLinks: true}
	if old != nil {
		oldDir := filepath.Join(kd, genName(old.Generation))
		for _, r := range old.Roots {
			if _, err := os.Lstat(filepath.Join(oldDir, filepath.FromSlash(strings.TrimSuffix(r, "/")))); err != nil {
				continue
			}
			if err := b.cloneOld(oldDir, r); err != nil {
				_ = fsutil.RemoveTree(tmp)
				return nil, err
			}
		}
	}
	if err := b.takeCaches(tree, held); err != nil {
		_ = fsutil.RemoveTree(tmp)
		return nil, err
	}
	b.finish()
	return commitTree(kd, ws, tmp, old, rootsOf(old, held), runID, tool)
}

// noCaches records that tool's baseline wrote no caches: the current
// generation gains the tool (meta.json rewritten atomically), or, with
// none, an empty one is made, so that the next run of the same tool is
// not taken for a cold one and its baseline does not run alone again.
func noCaches(kd, ws string, old *Meta, runID, tool string) (*Meta, error) {
	if old != nil {
		if hasTool(old.Tools, tool) {
			return old, nil
		}
		m := *old
		m.Tools = addTool(m.Tools, tool)
		if err := writeMeta(kd, &m); err != nil {
			return nil, fmt.Errorf("home layer: %w", err)
		}
		return &m, nil
	}
	tmp, err := os.MkdirTemp(kd, tmpPrefix)
	if err != nil {
		return nil, fmt.Errorf("home layer: %w", err)
	}
	return commitTree(kd, ws, tmp, nil, []string{}, runID, tool)
}

func hasTool(tools []string, t string) bool {
	for _, x := range tools {
		if x == t {
			return true
		}
	}
	return false
}

func addTool(tools []string, t string) []string {
	if t == "" || hasTool(tools, t) {
		return tools
	}
	out := append(append([]string{}, tools...), t)
	sort.Strings(out)
	return out
}

// Cold reports whether a layer has nothing yet for tool: no baseline of
// that command fed it.
func (l *Layer) Cold(tool string) bool { return l == nil || !hasTool(l.Meta.Tools, tool) }

// rootsOf is the union of a generation's roots and the caches taken now,
// each as a layer-relative directory ("root/.cache/").
func rootsOf(old *Meta, held []string) []string {
	var rs []string
	if old != nil {
		rs = append(rs, old.Roots...)
	}
	for _, c := range held {
		rs = append(rs, relAbs(c)+"/")
	}
	return topmost(rs)
}

// homeInPlace changes the current generation, which no run holds, as
// updateInPlace does for the workspace's layer.
func homeInPlace(kd, ws, tree string, held []string, old *Meta, runID, tool string) (*Meta, error) {
	dir := filepath.Join(kd, genName(old.Generation))
	marked := *old
	marked.Updating = true
	if err := writeMeta(kd, &marked); err != nil {
		return nil, fmt.Errorf("home layer: %w", err)
	}
	b := &builder{ws: "/", dst: dir, dirs: map[string]dirAttr{}, noLinks: true, files: old.Files, bytes: old.Bytes}
	if err := b.takeCaches(tree, held); err != nil {
		return nil, err
	}
	b.finish()
	if err := syncFS(dir); err != nil {
		return nil, fmt.Errorf("home layer: sync %s: %w (layer not updated)", dir, err)
	}
	gen := nextGeneration(kd, old)
	next := filepath.Join(kd, genName(gen))
	if err := os.Rename(dir, next); err != nil {
		return nil, fmt.Errorf("home layer: %w", err)
	}
	m := &Meta{Format: Format, Workspace: ws, Generation: gen, Files: b.files, Bytes: b.bytes,
		Roots: rootsOf(old, held), BuiltAt: time.Now().UTC(), Run: runID, Tools: addTool(old.Tools, tool)}
	if err := writeMeta(kd, m); err != nil {
		return nil, fmt.Errorf("home layer: %w", err)
	}
	_ = os.Remove(genLock(kd, old.Generation))
	removeUnused(kd, gen)
	return m, nil
}

// commitTree makes dir (on kd's filesystem, complete) the next
// generation: synced, renamed into place, then named by meta.json written
// atomically (the crash-safe swap Update uses). roots nil: dir's own
// top-level entries, after everything but directories and plain regular
// files is removed from it (a copy-mode baseline's caches, taken whole).
func commitTree(kd, ws, dir string, old *Meta, roots []string, runID, tool string) (*Meta, error) {
	files, bytes := 0, int64(0)
	if roots == nil {
		files, bytes = sanitize(dir)
		des, _ := os.ReadDir(dir)
		for _, de := range des {
			roots = append(roots, de.Name()+"/")
		}
	} else {
		files, bytes = count(dir)
	}
	if err := syncFS(dir); err != nil {
		return nil, fmt.Errorf("home layer: sync %s: %w (layer not updated)", dir, err)
	}
	gen := nextGeneration(kd, old)
	next := filepath.Join(kd, genName(gen))
	if err := os.Rename(dir, next); err != nil {
		_ = fsutil.RemoveTree(dir)
		return nil, fmt.Errorf("home layer: %w", err)
	}
	var tools []string
	if old != nil {
		tools = old.Tools
	}
	m := &Meta{Format: Format, Workspace: ws, Generation: gen, Files: files, Bytes: bytes,
		Roots: roots, BuiltAt: time.Now().UTC(), Run: runID, Tools: addTool(tools, tool)}
	if err := writeMeta(kd, m); err != nil {
		_ = fsutil.RemoveTree(next)
		return nil, fmt.Errorf("home layer: %w", err)
	}
	removeUnused(kd, gen)
	return m, nil
}

// sanitize removes from dir everything but directories and regular files,
// clears set-id bits, and makes every directory its owner's to write (a
// later update or gc must be able to remove it); it returns the files and
// bytes left.
func sanitize(dir string) (files int, bytes int64) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		switch {
		case fi.IsDir():
			_ = os.Chmod(p, fi.Mode().Perm()|0o700)
		case fi.Mode().IsRegular():
			if fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
				_ = os.Chmod(p, fi.Mode().Perm())
			}
			files++
			bytes += fi.Size()
		default:
			_ = os.Remove(p)
		}
		return nil
	})
	return files, bytes
}

// Provisional makes, from a baseline that ran alone first while ws's home
// layer was cold, a generation this run's later jobs stack at once
// (docs/report.md, warm.home.baseline_first). It lives inside the harvest,
// which the run holds, so no other run's update or gc removes it, and it
// becomes the layer's current generation only through CommitHome at the
// run's end, when the run shows the baseline could feed it.
func (h *Harvest) Provisional(kind HomeKind, caches []string, old *Layer) (dir string, files int, bytes int64, err error) {
	var om *Meta
	if old != nil {
		om = &old.Meta
		h.provFrom = old.Meta.Generation
	}
	if _, err := os.Lstat(h.Upper); err != nil {
		return "", 0, 0, &Skipped{"the baseline wrote no caches"}
	}
	if kind == HomeCopy {
		files, bytes = sanitize(h.Upper)
		h.prov = h.Upper
		return h.Upper, files, bytes, nil
	}
	var held []string
	for _, c := range caches {
		if _, err := os.Lstat(filepath.Join(h.Upper, filepath.FromSlash(relAbs(c)))); err == nil {
			held = append(held, c)
		}
	}
	if len(held) == 0 {
		return "", 0, 0, &Skipped{"the baseline wrote no caches"}
	}
	dst := filepath.Join(h.dir, "layer")
	if err := os.Mkdir(dst, 0o700); err != nil {
		return "", 0, 0, fmt.Errorf("home layer: %w", err)
	}
	b := &builder{ws: "/", dst: dst, dirs: map[string]dirAttr{}, noLinks: true}
	if old != nil {
		// What the layer held for other tools stays (its files are never
		// written in place: linking them is safe).
		for _, r := range om.Roots {
			if _, err := os.Lstat(filepath.Join(old.Dir, filepath.FromSlash(strings.TrimSuffix(r, "/")))); err != nil {
				continue
			}
			if err := b.cloneOld(old.Dir, r); err != nil {
				return "", 0, 0, err
			}
		}
	}
	if err := b.takeCaches(h.Upper, held); err != nil {
		return "", 0, 0, err
	}
	b.finish()
	h.prov, h.provRoots = dst, rootsOf(om, held)
	return dst, b.files, b.bytes, nil
}

// CommitHome makes the harvest's provisional generation ws's current one,
// unless another run's baseline made a newer one than the generation it
// started from (that one stays: both came from the same rule). A
// provisional generation is the baseline's caches alone (over the layer
// the run started with, in copy mode, as its caches were seeded from it).
func (h *Harvest) HasProvisional() bool { return h != nil && h.prov != "" }

// CommitHome: see HasProvisional.
func CommitHome(root, ws string, kind HomeKind, h *Harvest, runID, tool string) (*Meta, error) {
	if h == nil || h.prov == "" {
		return nil, &Skipped{"no provisional generation"}
	}
	kd := homeKey(root, ws, kind)
	release, err := flock(filepath.Join(kd, updateLock), true, false)
	if err != nil {
		return nil, fmt.Errorf("home layer: lock %s: %w", kd, err)
	}
	defer release()
	old, _ := readMeta(kd)
	if old != nil && (old.Format != Format || old.Workspace != ws || old.Updating) {
		old = nil
	}
	if old != nil && old.Generation > h.provFrom {
		// Another run's baseline made one meanwhile: it stays.
		return old, nil
	}
	var roots []string
	if kind == HomeOverlay {
		roots = h.provRoots
	}
	m, err := commitTree(kd, ws, h.prov, old, roots, runID, tool)
	if err == nil {
		h.prov = ""
	}
	return m, err
}

// TidyHome removes the generations of ws's home layer of kind that no
// run needs any more (Tidy's rule).
func TidyHome(root, ws string, kind HomeKind) {
	kd := homeKey(root, ws, kind)
	rel, err := flock(filepath.Join(kd, updateLock), true, true)
	if err != nil {
		return
	}
	defer rel()
	if m, err := readMeta(kd); err == nil {
		removeUnused(kd, m.Generation)
	}
}
