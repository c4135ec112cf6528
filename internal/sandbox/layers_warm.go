package sandbox

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/warm"
)

// warmRun is one run's use of the workspace's warm layer
// (internal/sandbox/warm), stacked just above the workspace in every job,
// and of the home layer (homeRun). It keeps the upper dir of the run's
// first pure baseline job (no edits, deletes or common files of its own:
// only the checkout's own code ran there) for finish to feed the layer
// from. Only overlay mode feeds it: a copy-mode copy lives at another
// path, so its outputs (cargo dep-info, CMakeCache.txt, .pth files) name
// a directory that is gone once the run ends.
type warmRun struct {
	root, ws string
	mode     engine.Mode
	note     string      // why none is stacked, when none is
	layer    *warm.Layer // nil: none stacked
	baseline string      // the pure baseline's name; "" when none feeds
	harvest  *warm.Harvest

	mu    sync.Mutex
	taken bool   // the baseline's first job was given the harvest
	upper string // where its upper dir was kept, once it ended normally

	home *homeRun // the home layer; nil when not used
}

// run runs job in sb with the layers stacked.
func (w *warmRun) run(ctx context.Context, sb engine.Sandbox, job engine.Job) (engine.Outcome, error) {
	if w.layer != nil {
		// Last: the lowest of the extra layers, just above the workspace
		// (a --freeze copy of the sources stays above it).
		job.Lowers = append(append([]string{}, job.Lowers...), w.layer.Dir)
	}
	w.home.job(&job)
	feed := false
	// Known by name (homeRun.job says why): the job's files are the
	// canary's when one is planted.
	if w.baseline != "" && job.Hyp.Name == w.baseline {
		w.mu.Lock()
		if !w.taken {
			w.taken, feed = true, true
		}
		w.mu.Unlock()
	}
	if feed && job.KeepDir == "" { // --keep's own KeepDir serves as well
		job.KeepDir = w.harvest.Upper
	}
	out, err := sb.Run(ctx, job)
	if err == nil && ctx.Err() == nil {
		w.home.ended(job)
	}
	if feed && err == nil && ctx.Err() == nil {
		if _, serr := os.Lstat(job.KeepDir); serr == nil {
			w.mu.Lock()
			w.upper = job.KeepDir
			w.mu.Unlock()
		}
	}
	return out, err
}

// startWarm wraps the run's sandbox so its jobs see the workspace's warm
// layer and its baseline can feed it. nil when the layer does not apply:
// --no-warm, in-place runs (the checkout itself is the tree), remote runs
// (each node keeps its own mirror's ignored outputs warm), or a state dir
// inside the workspace.
func startWarm(cfg *engine.Config, o LayerOptions) *warmRun {
	mode := cfg.Sandbox.Mode()
	if o.NoWarm || (mode != engine.ModeOverlay && mode != engine.ModeCopy) {
		return nil
	}
	ws := cfg.Workspace
	if inside(o.Store.Root, ws) {
		return nil
	}
	w := &warmRun{root: warm.Dir(o.Store.Root), ws: ws, mode: mode}
	if mode == engine.ModeCopy && o.CopySkip {
		// Copying the layer in would bring back what --copy-skip leaves
		// out (the layer is mostly target/, node_modules' builds…).
		w.note = "not used: copy mode with --copy-skip"
	} else if l, err := warm.Acquire(w.root, ws); err != nil {
		w.note = "not used: " + err.Error()
	} else {
		w.layer = l
	}
	pure := ""
	for _, h := range cfg.Hyps {
		if h.IsBaseline() && len(h.Common) == 0 && len(h.CommonDeletes) == 0 {
			pure = h.Name
			break
		}
	}
	if mode == engine.ModeOverlay {
		w.baseline = pure
	}
	w.home = startHome(cfg, o.Store, ws, pure)
	if w.baseline != "" {
		var err error
		if w.harvest, err = warm.NewHarvest(w.root, ws); err != nil {
			fmt.Fprintln(o.Notices, "shadow:", err)
			w.baseline = ""
		}
	}
	l := wrap(cfg.Sandbox)
	l.warm = w
	cfg.Sandbox = l
	return w
}

// finish fills the report's warm field and, when the run's pure baseline
// ran to its end in a run whose checkout did not change meanwhile, makes
// its ignored outputs the layer's next generation. It is a report fixer
// (engine.Config.FixReport): it runs before run_finished is delivered, so
// the record and every consumer see the result.
func (w *warmRun) finish(r *engine.Report) {
	info := &engine.WarmLayer{Note: w.note}
	if l := w.layer; l != nil {
		info.Used, info.Generation, info.Files, info.Bytes = true, l.Meta.Generation, l.Meta.Files, l.Meta.Bytes
	}
	r.Warm = info
	why := w.feedable(r)
	defer w.home.finish(w, r, "")
	if why == "" {
		// Every job has ended: this run's hold on its generation can go,
		// so that, unless another run holds it, the update changes it in
		// place instead of copying it.
		w.layer.Release()
		m, err := warm.Update(w.root, w.ws, w.upper, r.Run)
		switch {
		case err != nil:
			why = err.Error()
		case m != nil:
			info.Updated = m.Generation
		}
	}
	if why != "" {
		info.Note = strings.TrimPrefix(info.Note+"; ", "; ") + "not updated: " + why
	}
	w.harvest.Remove()
}

// feedable is why the run's baseline may not feed the layer ("" when it
// may).
func (w *warmRun) feedable(r *engine.Report) string {
	if w.baseline == "" {
		if w.mode != engine.ModeOverlay {
			return "only an overlay run's baseline feeds the layer"
		}
		return "no hypothesis without edits (a baseline) ran only the checkout's own files"
	}
	var res *engine.Result
	for _, h := range r.Hypotheses {
		if h.Name == w.baseline {
			res = h
		}
	}
	switch {
	case res == nil:
		return "the baseline did not run"
	case res.Status != engine.StatusPassed && res.Status != engine.StatusFailed:
		return "the baseline did not run to its end (" + res.Status + ")"
	case r.Stale:
		return "the checkout changed during the run (stale)"
	case r.Cancelled:
		return "the run was cancelled"
	case w.upper == "":
		return "the baseline's upper dir could not be kept beside the layer (another filesystem?)"
	}
	return ""
}

// release lets the stacked generation go and removes what is left of the
// harvest (a run that ended before run_finished).
func (w *warmRun) release() {
	if w == nil {
		return
	}
	w.layer.Release()
	w.harvest.Remove()
	w.home.release()
	// The generation this run held may have been replaced meanwhile (by
	// this run's own baseline, or another run's): it can go now.
	warm.Tidy(w.root, w.ws)
}
