package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/warm"
	"github.com/shadow-dev/shadow/snap"
)

// warmSandbox stacks the workspace's warm layer (internal/sandbox/warm) just above
// the workspace in every job, and keeps the upper dir of the run's first
// pure baseline job (no edits, deletes or common files of its own: only
// the checkout's own code ran there) for warmRun.finish to feed the layer
// from. Only overlay mode feeds it: a copy-mode copy lives at another path,
// so its outputs (cargo dep-info, CMakeCache.txt, .pth files) name a
// directory that is gone once the run ends.
type warmSandbox struct {
	engine.Sandbox
	layer    *warm.Layer // nil: none stacked
	baseline string      // the pure baseline's name; "" when none feeds
	harvest  *warm.Harvest

	mu    sync.Mutex
	taken bool   // the baseline's first job was given the harvest
	upper string // where its upper dir was kept, once it ended normally

	home *homeRun // the home layer; nil when not used
}

// Unwrap lets the engine find what the wrapped sandbox implements
// (engine.As: its workspace hold, copy mode's CopyCounter).
func (s *warmSandbox) Unwrap() engine.Sandbox { return s.Sandbox }

func (s *warmSandbox) Run(ctx context.Context, job engine.Job) (engine.Outcome, error) {
	if s.layer != nil {
		// Last: the lowest of the extra layers, just above the workspace
		// (a --freeze copy of the sources stays above it).
		job.Lowers = append(append([]string{}, job.Lowers...), s.layer.Dir)
	}
	s.home.job(&job)
	feed := false
	// Known by name (homeRun.job says why): the job's files are the
	// canary's when one is planted.
	if s.baseline != "" && job.Hyp.Name == s.baseline {
		s.mu.Lock()
		if !s.taken {
			s.taken, feed = true, true
		}
		s.mu.Unlock()
	}
	if feed && job.KeepDir == "" { // --keep's own KeepDir serves as well
		job.KeepDir = s.harvest.Upper
	}
	out, err := s.Sandbox.Run(ctx, job)
	if err == nil && ctx.Err() == nil {
		s.home.ended(job)
	}
	if feed && err == nil && ctx.Err() == nil {
		if _, serr := os.Lstat(job.KeepDir); serr == nil {
			s.mu.Lock()
			s.upper = job.KeepDir
			s.mu.Unlock()
		}
	}
	return out, err
}

// warmRun is one run's use of the warm layer.
type warmRun struct {
	root, ws string
	sb       *warmSandbox
	note     string // why none is stacked, when none is
}

// startWarm wraps the run's sandbox so its jobs see the workspace's warm
// layer and its baseline can feed it. nil when the layer does not apply:
// --no-warm, in-place runs (the checkout itself is the tree), remote runs
// (each node keeps its own mirror's ignored outputs warm), or a state dir
// inside the workspace.
func (p *Plan) startWarm(cfg *engine.Config) *warmRun {
	mode := cfg.Sandbox.Mode()
	if p.noWarm || (mode != engine.ModeOverlay && mode != engine.ModeCopy) || p.remote {
		return nil
	}
	ws := cfg.Workspace
	if rel, err := filepath.Rel(ws, p.store.Root); err == nil && !strings.HasPrefix(rel, "..") {
		return nil
	}
	w := &warmRun{root: warm.Dir(p.store.Root), ws: ws}
	sb := &warmSandbox{Sandbox: cfg.Sandbox}
	if mode == engine.ModeCopy && p.copySkip {
		// Copying the layer in would bring back what --copy-skip leaves
		// out (the layer is mostly target/, node_modules' builds…).
		w.note = "not used: copy mode with --copy-skip"
	} else if l, err := warm.Acquire(w.root, ws); err != nil {
		w.note = "not used: " + err.Error()
	} else {
		sb.layer = l
	}
	pure := ""
	for _, h := range cfg.Hyps {
		if h.IsBaseline() && len(h.Common) == 0 && len(h.CommonDeletes) == 0 {
			pure = h.Name
			break
		}
	}
	if mode == engine.ModeOverlay {
		sb.baseline = pure
	}
	sb.home = p.startHome(w, cfg, pure)
	if sb.baseline != "" {
		var err error
		if sb.harvest, err = warm.NewHarvest(w.root, ws); err != nil {
			fmt.Fprintln(p.notices, "shadow:", err)
			sb.baseline = ""
		}
	}
	w.sb = sb
	cfg.Sandbox = sb
	return w
}

// finish fills the report's warm field and, when the run's pure baseline
// ran to its end in a run whose checkout did not change meanwhile, makes
// its ignored outputs the layer's next generation. It is a report fixer
// (engine.Config.FixReport): it runs before run_finished is delivered, so
// the record and every consumer see the result.
func (w *warmRun) finish(r *engine.Report) {
	info := &engine.WarmLayer{Note: w.note}
	if l := w.sb.layer; l != nil {
		info.Used, info.Generation, info.Files, info.Bytes = true, l.Meta.Generation, l.Meta.Files, l.Meta.Bytes
	}
	r.Warm = info
	why := w.feedable(r)
	defer w.sb.home.finish(w, r, "")
	if why == "" {
		// Every job has ended: this run's hold on its generation can go,
		// so that, unless another run holds it, the update changes it in
		// place instead of copying it.
		w.sb.layer.Release()
		m, err := warm.Update(w.root, w.ws, w.sb.upper, r.Run)
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
	w.sb.harvest.Remove()
}

// feedable is why the run's baseline may not feed the layer ("" when it
// may).
func (w *warmRun) feedable(r *engine.Report) string {
	sb := w.sb
	if sb.baseline == "" {
		if sb.Mode() != engine.ModeOverlay {
			return "only an overlay run's baseline feeds the layer"
		}
		return "no hypothesis without edits (a baseline) ran only the checkout's own files"
	}
	var res *engine.Result
	for _, h := range r.Hypotheses {
		if h.Name == sb.baseline {
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
	case sb.upper == "":
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
	w.sb.layer.Release()
	w.sb.harvest.Remove()
	w.sb.home.release()
	// The generation this run held may have been replaced meanwhile (by
	// this run's own baseline, or another run's): it can go now.
	warm.Tidy(w.root, w.ws)
}

// WarmDir is where the warm layers of every workspace live (`shadow gc`
// bounds them).
func WarmDir(store snap.Store) string { return warm.Dir(store.Root) }
