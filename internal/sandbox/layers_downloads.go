package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/fsutil"
	"github.com/shadow-dev/shadow/internal/sandbox/downloads"
	"github.com/shadow-dev/shadow/internal/sandbox/warm"
)

// dlRun is one run's checked downloads (docs/modes.md, "Checked
// downloads"): every job but the feeding baseline leaves what it wrote to
// its caches in a directory of the stage (Job.KeepHome) instead of
// having it removed; once the job has ended, shadow copies out of it the
// module zips, go.mod files and npm tarballs the checkout's lockfiles
// name, checks their hashes and keeps those that match in the stage's
// checked tree, then removes the rest: everything else the job wrote goes
// with it, as before. At the run's end the checked tree is merged into
// the home layer (warm.AddHome), whatever became of the baseline: a
// checked download is the same bytes whoever fetched it.
type dlRun struct {
	sums  *downloads.Sums // read from the checkout before any job ran
	kind  warm.HomeKind
	stage *warm.Harvest // Upper: the checked tree; beside it, job-N

	mu      sync.Mutex
	n       int
	count   downloads.Count
	ms      int64
	held    map[string]bool // the caches the checked tree holds
	baseEnv []string        // the feeding baseline's environment
}

// startDownloads reads the checkout's lockfiles; nil when they name
// nothing shadow can check (no job keeps its caches then).
func (h *homeRun) startDownloads(cfg *engine.Config) {
	sums := downloads.Read(cfg.Workspace, cfg.Subdir)
	if sums.Empty() {
		return
	}
	stage, err := warm.NewHomeHarvest(h.root, h.ws, h.kind)
	if err != nil {
		h.info.Note = strings.TrimPrefix(h.info.Note+"; ", "; ") + "checked downloads: " + err.Error()
		return
	}
	h.dl = &dlRun{sums: sums, kind: h.kind, stage: stage, held: map[string]bool{}}
}

// scratch is where the copies being checked are made: beside the
// checked tree, never in it (the layer takes every directory of it).
func (d *dlRun) scratch() string { return filepath.Join(filepath.Dir(d.stage.Upper), "scratch") }

// jobs is the directory the jobs' kept caches go in.
func (d *dlRun) jobs() string { return filepath.Join(filepath.Dir(d.stage.Upper), "jobs") }

// keep gives a job that does not feed the layer a place to leave its
// cache writes in.
func (d *dlRun) keep(job *engine.Job) {
	if d == nil || job.KeepHome != "" {
		return
	}
	d.mu.Lock()
	d.n++
	n := d.n
	d.mu.Unlock()
	job.KeepHome = filepath.Join(d.jobs(), fmt.Sprintf("job-%d", n))
}

// ended checks what a job that keep was given left, and removes it; false
// when the job is not one of those.
func (d *dlRun) ended(job engine.Job, layer string) bool {
	if d == nil || !strings.HasPrefix(job.KeepHome, d.jobs()+string(filepath.Separator)) {
		return false
	}
	d.check(job.KeepHome, job.Env, layer)
	_ = fsutil.RemoveTree(job.KeepHome)
	return true
}

// check promotes the checked downloads of tree, one job's caches as the
// sandbox left them (overlay: a mirror of absolute paths; copy: its
// caches by their copy-mode names), into the checked tree. Entries the
// layer (layer: the generation the job stacked) holds are skipped.
func (d *dlRun) check(tree string, env []string, layer string) {
	if _, err := os.Lstat(tree); err != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	t := time.Now()
	defer func() { d.ms += time.Since(t).Milliseconds() }()
	type one struct {
		cache string // the key the checked tree holds it under
		src   string
		fn    func(src, dst, scratch string, have ...string) (downloads.Count, error)
	}
	var todo []one
	if d.kind == warm.HomeCopy {
		// Copy mode points only npm's cache at the job's own
		// (landlock.ScratchEnv); Go's module cache is the user's,
		// read-only to the sealed command, so nothing is downloaded there.
		todo = append(todo, one{"/npm", filepath.Join(tree, "npm"), d.sums.NPMCache})
	} else {
		gomod, npm := warm.HomeDownloadCaches(env)
		if gomod != "" {
			todo = append(todo, one{gomod, filepath.Join(tree, gomod), d.sums.GoModCache})
		}
		if npm != "" {
			todo = append(todo, one{npm, filepath.Join(tree, npm), d.sums.NPMCache})
		}
	}
	for _, o := range todo {
		var have []string
		if layer != "" {
			have = append(have, filepath.Join(layer, o.cache))
		}
		c, err := o.fn(o.src, filepath.Join(d.stage.Upper, o.cache), d.scratch(), have...)
		d.count.Add(c)
		if c.Promoted > 0 {
			d.held[o.cache] = true
		}
		if err != nil {
			d.count.Refused++ // shadow's own failure: what is left is not kept
		}
	}
}

// finish checks the feeding baseline's caches too when they did not feed
// the layer (fed: they did), merges the checked tree into the layer, and
// fills the report's counts.
func (d *dlRun) finish(h *homeRun, runID string, fed bool) {
	if d == nil {
		return
	}
	if !fed && h.upper != "" {
		d.check(h.upper, d.baseEnv, h.dir)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.held) > 0 {
		var caches []string
		for c := range d.held {
			caches = append(caches, c)
		}
		sort.Strings(caches)
		h.layer.Release()
		t := time.Now()
		m, err := warm.AddHome(h.root, h.ws, h.kind, d.stage.Upper, caches, runID)
		d.ms += time.Since(t).Milliseconds()
		switch {
		case err != nil:
			h.info.Note = strings.TrimPrefix(h.info.Note+"; ", "; ") + "checked downloads not kept: " + err.Error()
		case m != nil:
			h.info.Updated = m.Generation
			h.info.Downloads = d.count.Promoted
		}
	}
	h.info.DownloadsRefused = d.count.Refused
	h.info.DownloadsMS = d.ms
	d.stage.Remove()
}

func (d *dlRun) release() {
	if d != nil {
		d.stage.Remove()
	}
}
