package overlay

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/shadow-dev/shadow/engine"
)

// The home layer (internal/sandbox/warm): a cache the run names
// (Job.HomeCaches: Go's, npm's, pip's, cargo's, XDG_CACHE_HOME) that the
// layer holds something for gets an overlay of its own, mounted over
// $HOME's (or in place of a cache's overlaid outside $HOME), with the
// layer's part for it stacked between the real directory and the job's
// own upper. An overlay of its own, not one more layer of $HOME's: the
// layer lives in shadow's state dir, by default inside $HOME, and
// overlayfs refuses layers inside one another (ELOOP, "overlapping
// layers", fs/overlayfs/super.c).
//
// A cache the layer holds nothing for gets no mount at all: the overlay
// of the sealed directory it lies in ($HOME's, or a cache's outside
// $HOME) already takes its writes, into that overlay's upper, and shows
// the real directory below. Each overlay mount costs its upper and work
// dirs, overlayfs's work/ and index/ set-up, its read-only step and their
// removal, about a millisecond of CPU each; most caches most runs stack
// nothing for (a Go project's npm and cargo caches).
//
// What the feeding baseline (Job.KeepHome) wrote to each cache is kept
// for the layer's next generation, from the cache's own upper where it
// had one, else from the sealed directory's upper below the cache's path:
// the same files either way, as no layer lay between.

type homeDir struct {
	sd sealDir   // for the report's outside writes (a cache: one entry)
	x  shadowDir // the overlay
}

// homeCache is one cache of the job that the sandbox can keep apart: in a
// sealed directory, not in the workspace, a mask or the layer.
type homeCache struct {
	path   string
	parent int    // index in sealed of the sealed directory it lies in
	layer  string // the layer's part for it; "" when the layer has none
}

// homeCaches lists the job's caches the home layer is about.
func homeCaches(job engine.Job, sealed []sealDir, masks []string) []homeCache {
	var out []homeCache
next:
	for _, c := range job.HomeCaches {
		c = resolve(c)
		if c == "/" || within(c, job.Workspace) || within(job.Workspace, c) {
			continue
		}
		if job.HomeLayer != "" && (within(c, job.HomeLayer) || within(job.HomeLayer, c)) {
			continue
		}
		for _, m := range masks {
			if within(c, m) || within(m, c) {
				continue next
			}
		}
		parent := -1
		for i := range sealed {
			if sealed[i].kind != "writable" && within(c, sealed[i].path) {
				parent = i
			}
		}
		if parent < 0 {
			continue
		}
		hc := homeCache{path: c, parent: parent}
		if job.HomeLayer != "" {
			if fi, err := os.Lstat(filepath.Join(job.HomeLayer, c)); err == nil && fi.IsDir() {
				hc.layer = filepath.Join(job.HomeLayer, c)
			}
		}
		out = append(out, hc)
	}
	return out
}

// homeDirs makes the cache overlays of caches: one for each the layer
// holds something for.
func homeDirs(caches []homeCache, dir string, n int) ([]homeDir, error) {
	var out []homeDir
	for _, hc := range caches {
		if hc.layer == "" {
			continue
		}
		c := hc.path
		// A cache overlaid outside $HOME (its sealed dir is c itself)
		// keeps that overlay too: this one, listed after it at the same
		// depth, is mounted over it and takes every write.
		i := n + len(out)
		x := shadowDir{Target: c, Lowers: []string{hc.layer}, Upper: filepath.Join(dir, fmt.Sprintf("home%d-upper", i)), Work: filepath.Join(dir, fmt.Sprintf("home%d-work", i)), Optional: true}
		for _, d := range []string{x.Upper, x.Work} {
			if err := os.Mkdir(d, 0o700); err != nil {
				return nil, err
			}
		}
		real, rerr := os.Stat(c)
		if rerr != nil || !real.IsDir() {
			x.Made = true
		}
		perm := os.FileMode(0o755)
		if rerr == nil {
			perm = real.Mode().Perm()
		}
		_ = os.Chmod(x.Upper, perm)
		out = append(out, homeDir{sd: sealDir{path: c, kind: "cache"}, x: x})
	}
	return out, nil
}

// keepHome leaves what the job wrote to each cache at keep/C (a mirror of
// absolute paths) for the home layer to take from: a cache overlay's
// upper, else the part of its sealed directory's upper below C. keep is
// made even when the job wrote no cache: a baseline that wrote none still
// records its command (docs/modes.md, "Baseline first"). Renames: keep
// lies on the sandbox base's filesystem.
func keepHome(keep string, caches []homeCache, homes []homeDir, sealed []sealDir, sealUppers []string) {
	if err := os.MkdirAll(keep, 0o700); err != nil {
		return
	}
	own := map[string]string{}
	for _, h := range homes {
		own[h.sd.path] = h.x.Upper
	}
	for _, hc := range caches {
		from, ok := own[hc.path]
		if !ok {
			rel, err := filepath.Rel(sealed[hc.parent].path, hc.path)
			if err != nil {
				continue
			}
			from = filepath.Join(sealUppers[hc.parent], rel)
			if _, err := os.Lstat(from); err != nil {
				continue // nothing written there
			}
		}
		to := filepath.Join(keep, hc.path)
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			continue
		}
		_ = os.Rename(from, to)
	}
}
