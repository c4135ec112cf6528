package overlay

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/shadow-dev/shadow/engine"
)

// The home layer (internal/sandbox/warm): each cache the run names
// (Job.HomeCaches: Go's, npm's, pip's, cargo's, XDG_CACHE_HOME) gets an
// overlay of its own, mounted over $HOME's (or in place of a cache's
// overlaid outside $HOME), with the layer's part for it stacked between
// the real directory and the job's own upper. An overlay of its own, not
// one more layer of $HOME's: the layer lives in shadow's state dir, by
// default inside $HOME, and overlayfs refuses layers inside one another
// (ELOOP, "overlapping layers", fs/overlayfs/super.c). Its upper is what
// the job wrote to that cache: the baseline's is kept (Job.KeepHome) for
// the layer's next generation, every other job's goes with the job.

type homeDir struct {
	sd sealDir   // for the report's outside writes (a cache: one entry)
	x  shadowDir // the overlay
}

// homeDirs lists the cache overlays of job. A cache gets none when it
// lies in the workspace, in no sealed directory, in or over a mask or a
// git dir, or when the layer and it overlap.
func homeDirs(job engine.Job, sealed []sealDir, masks []string, dir string, n int) ([]homeDir, error) {
	var out []homeDir
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
		var parent *sealDir
		for i := range sealed {
			if sealed[i].kind != "writable" && within(c, sealed[i].path) {
				parent = &sealed[i]
			}
		}
		if parent == nil {
			continue
		}
		// A cache overlaid outside $HOME (parent.path == c) keeps that
		// overlay too: this one, listed after it at the same depth, is
		// mounted over it and takes every write.
		i := n + len(out)
		x := shadowDir{Target: c, Upper: filepath.Join(dir, fmt.Sprintf("home%d-upper", i)), Work: filepath.Join(dir, fmt.Sprintf("home%d-work", i)), Optional: true}
		for _, d := range []string{x.Upper, x.Work} {
			if err := os.Mkdir(d, 0o700); err != nil {
				return nil, err
			}
		}
		real, rerr := os.Stat(c)
		if rerr != nil || !real.IsDir() {
			x.Made = true
		}
		if job.HomeLayer != "" {
			if fi, err := os.Lstat(filepath.Join(job.HomeLayer, c)); err == nil && fi.IsDir() {
				x.Lowers = []string{filepath.Join(job.HomeLayer, c)}
			}
		}
		if x.Made && len(x.Lowers) == 0 {
			// Nothing below yet: an empty lower (overlayfs needs one).
			empty := filepath.Join(dir, fmt.Sprintf("home%d-empty", i))
			if err := os.Mkdir(empty, 0o755); err != nil {
				return nil, err
			}
			x.Lowers = []string{empty}
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

// keepHome leaves each cache overlay's upper at keep/C (a mirror of
// absolute paths) for the home layer to take from. A rename: keep lies
// on the sandbox base's filesystem.
func keepHome(keep string, homes []homeDir) {
	for _, h := range homes {
		to := filepath.Join(keep, h.sd.path)
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			continue
		}
		_ = os.Rename(h.x.Upper, to)
	}
}
