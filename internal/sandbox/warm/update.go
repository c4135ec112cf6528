package warm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// ErrNotGit: a workspace that is not a git checkout gets no layer (shadow
// could not tell its build outputs from its sources).
var ErrNotGit = errors.New("not a git checkout: shadow cannot tell build outputs from sources there")

// Update makes the next generation of ws's layer current: the current one
// merged with what the no-edit baseline of run runID left in upper (its
// overlay upper dir, whiteouts and opaque markers as overlayfs leaves
// them). Only ignored paths are taken (package doc). Two runs finishing at
// once take turns on the workspace's update lock; the generation a live
// run stacked stays until it ends.
func Update(root, ws, upper, runID string) (*Meta, error) {
	kd := keyDir(root, ws)
	if err := os.MkdirAll(kd, 0o700); err != nil {
		return nil, fmt.Errorf("warm layer: %w", err)
	}
	release, err := flock(filepath.Join(kd, updateLock), true, false)
	if err != nil {
		return nil, fmt.Errorf("warm layer: lock %s: %w", kd, err)
	}
	defer release()
	if !isGitCheckout(ws) {
		return nil, ErrNotGit
	}
	old, _ := readMeta(kd)
	if old != nil && (old.Format != Format || old.Workspace != ws || old.Updating) {
		old = nil // rebuilt from the baseline alone
	}
	taken, gone, err := scanUpper(ws, upper)
	if err != nil {
		return nil, fmt.Errorf("warm layer: %w", err)
	}
	if len(taken) == 0 && len(gone) == 0 {
		if old != nil {
			return old, nil // nothing new: the current generation stays
		}
		return nil, &Skipped{"the baseline wrote no git-ignored files"}
	}
	var oldDir string
	var keep []string
	if old != nil {
		oldDir = filepath.Join(kd, genName(old.Generation))
		if keep, _, err = checkRoots(ws, oldDir, old.Roots, false); err != nil {
			return nil, fmt.Errorf("warm layer: %w", err)
		}
	}
	tr, err := tracked(ws, append(append([]string{}, taken...), keep...))
	if err != nil {
		return nil, fmt.Errorf("warm layer: %w", err)
	}
	if old != nil {
		// No run holds the current generation: change it in place, at the
		// cost of what the baseline wrote rather than of the whole layer.
		if rel, err := flock(genLock(kd, old.Generation), true, true); err == nil {
			defer rel()
			return updateInPlace(kd, ws, upper, runID, old, keep, taken, gone, tr)
		}
	}
	tmp, err := os.MkdirTemp(kd, tmpPrefix)
	if err != nil {
		return nil, fmt.Errorf("warm layer: %w", err)
	}
	done := false
	defer func() {
		if !done {
			_ = fsutil.RemoveTree(tmp)
		}
	}()
	b := &builder{ws: ws, dst: tmp, tracked: tr, dirs: map[string]dirAttr{}}
	for _, r := range keep {
		if err := b.cloneOld(oldDir, r); err != nil {
			return nil, err
		}
	}
	for _, g := range gone {
		if err := b.remove(g); err != nil {
			return nil, err
		}
	}
	for _, r := range taken {
		if err := b.take(upper, r); err != nil {
			return nil, err
		}
	}
	b.finish()
	files, bytes := b.files, b.bytes
	// The upper was mounted volatile: nothing of it was synced. The new
	// generation's files are its inodes (hard links) or copies on this
	// filesystem, so one syncfs(2) here puts both on disk before the swap;
	// a layer whose files a crash left empty would have cargo trust
	// fingerprints over broken rlibs. A write-back error fails the update.
	if err := syncFS(tmp); err != nil {
		return nil, fmt.Errorf("warm layer: sync %s: %w (layer not updated)", tmp, err)
	}
	gen := nextGeneration(kd, old)
	dir := filepath.Join(kd, genName(gen))
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("warm layer: %w", err)
	}
	done = true
	m := &Meta{Format: Format, Workspace: ws, Generation: gen, Files: files, Bytes: bytes,
		Roots: presentRoots(dir, append(keep, taken...)), BuiltAt: time.Now().UTC(), Run: runID}
	// The swap: readers find the new generation through meta.json, which
	// is replaced atomically (and synced) only once the layer is complete.
	if err := writeMeta(kd, m); err != nil {
		_ = fsutil.RemoveTree(dir)
		return nil, fmt.Errorf("warm layer: %w", err)
	}
	removeUnused(kd, gen)
	return m, nil
}

// updateInPlace changes the current generation, which no run holds (the
// caller has its lock exclusive and the update lock), and renames it to
// the next generation. meta.json says "updating" meanwhile, so a crash
// half-way leaves a layer that is never stacked; files are replaced one by
// one (the old name unlinked, the new inode linked), never written into.
func updateInPlace(kd, ws, upper, runID string, old *Meta, keep, taken, gone []string, tr map[string]bool) (*Meta, error) {
	dir := filepath.Join(kd, genName(old.Generation))
	marked := *old
	marked.Updating = true
	if err := writeMeta(kd, &marked); err != nil {
		return nil, fmt.Errorf("warm layer: %w", err)
	}
	b := &builder{ws: ws, dst: dir, tracked: tr, dirs: map[string]dirAttr{}, files: old.Files, bytes: old.Bytes}
	valid := map[string]bool{}
	for _, r := range keep {
		valid[r] = true
	}
	var drop []string
	for _, r := range old.Roots {
		if !valid[r] {
			drop = append(drop, r)
		}
	}
	for p := range tr {
		drop = append(drop, p)
	}
	for _, r := range append(drop, gone...) {
		if err := b.remove(r); err != nil {
			return nil, err
		}
	}
	for _, r := range taken {
		if err := b.take(upper, r); err != nil {
			return nil, err
		}
	}
	b.finish()
	if err := syncFS(dir); err != nil {
		return nil, fmt.Errorf("warm layer: sync %s: %w (layer not updated)", dir, err)
	}
	gen := nextGeneration(kd, old)
	next := filepath.Join(kd, genName(gen))
	if err := os.Rename(dir, next); err != nil {
		return nil, fmt.Errorf("warm layer: %w", err)
	}
	m := &Meta{Format: Format, Workspace: ws, Generation: gen, Files: b.files, Bytes: b.bytes,
		Roots: presentRoots(next, append(keep, taken...)), BuiltAt: time.Now().UTC(), Run: runID}
	if err := writeMeta(kd, m); err != nil {
		return nil, fmt.Errorf("warm layer: %w", err)
	}
	_ = os.Remove(genLock(kd, old.Generation))
	removeUnused(kd, gen) // generations copied while runs held them
	return m, nil
}

// nextGeneration is one above any generation present (a crash between the
// rename and the meta write leaves a directory meta.json does not name).
func nextGeneration(kd string, old *Meta) int {
	n := 0
	if old != nil {
		n = old.Generation
	}
	des, _ := os.ReadDir(kd)
	for _, de := range des {
		if g, ok := genNumber(de.Name()); ok && g > n {
			n = g
		}
	}
	return n + 1
}

// presentRoots are the topmost roots the finished layer holds, each with
// a trailing '/' when a directory.
func presentRoots(dir string, roots []string) []string {
	var out []string
	for _, r := range topmost(roots) {
		bare := strings.TrimSuffix(r, "/")
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(bare)))
		if err != nil {
			continue
		}
		if fi.IsDir() {
			bare += "/"
		}
		out = append(out, bare)
	}
	return topmost(out)
}

// removeUnused removes the generations other than current, and leftover
// temporary directories, that no live run holds (the caller holds the
// update lock, so no generation is being built meanwhile).
func removeUnused(kd string, current int) {
	des, _ := os.ReadDir(kd)
	for _, de := range des {
		name := de.Name()
		if strings.HasPrefix(name, tmpPrefix) {
			_ = fsutil.RemoveTree(filepath.Join(kd, name))
			continue
		}
		if strings.HasPrefix(name, keepPrefix) && !strings.HasSuffix(name, ".lock") {
			removeHarvest(filepath.Join(kd, name))
			continue
		}
		g, ok := genNumber(name)
		if !ok || g == current {
			continue
		}
		_ = removeGen(kd, g)
	}
}

// removeGen removes one generation unless a run holds it.
func removeGen(kd string, g int) error {
	rel, err := flock(genLock(kd, g), true, true)
	if err != nil {
		return err
	}
	defer rel()
	if err := fsutil.RemoveTree(filepath.Join(kd, genName(g))); err != nil {
		return err
	}
	// The lock file goes too; a reader that opened it before sees the
	// directory gone once it has the lock, and looks again.
	return os.Remove(genLock(kd, g))
}

// checkRoots returns which of a layer's roots still hold: the root exists
// in the layer and git still ignores it; with strict, none may hold a tracked file either
// (Acquire: the layer would show over a source). why says, for the first
// that does not, what changed.
func checkRoots(ws, layerDir string, roots []string, strict bool) (ok []string, why string, err error) {
	var cand []string
	for _, r := range roots {
		bare := strings.TrimSuffix(r, "/")
		if _, err := os.Lstat(filepath.Join(layerDir, filepath.FromSlash(bare))); err != nil {
			if why == "" {
				why = fmt.Sprintf("%s is missing from the layer", r)
			}
			continue
		}
		cand = append(cand, r)
	}
	ig, err := ignored(ws, cand)
	if err != nil {
		return nil, "", err
	}
	for _, r := range cand {
		if !ig[r] {
			if why == "" {
				why = fmt.Sprintf("%s is no longer ignored by git", r)
			}
			continue
		}
		ok = append(ok, r)
	}
	if strict && len(ok) > 0 {
		tr, err := tracked(ws, ok)
		if err != nil {
			return nil, "", err
		}
		for p := range tr {
			if why == "" {
				why = fmt.Sprintf("%s is tracked by git now", p)
			}
			return nil, why, nil
		}
	}
	return ok, why, nil
}

// Tidy removes what of ws's layer no run needs any more: generations older
// than the current one that no live run holds, and harvests of ended runs.
// It never waits: a layer being updated is left to that update.
func Tidy(root, ws string) {
	kd := keyDir(root, ws)
	rel, err := flock(filepath.Join(kd, updateLock), true, true)
	if err != nil {
		return
	}
	defer rel()
	m, err := readMeta(kd)
	if err != nil {
		return
	}
	removeUnused(kd, m.Generation)
}
