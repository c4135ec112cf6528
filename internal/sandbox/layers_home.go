package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/warm"
	"github.com/shadow-dev/shadow/snap"
)

// homeRun is one run's use of the workspace's home layer: the caches
// builds write outside the workspace, stacked read-only under every job's
// (overlay) or copied into its own (copy mode), fed only by the run's pure
// baseline (internal/sandbox/warm, docs/modes.md "The home layer").
type homeRun struct {
	root, ws string
	kind     warm.HomeKind
	layer    *warm.Layer // the generation acquired at the start; nil: cold
	// isolated: no sibling can reach the baseline while it runs (a
	// private network and /tmp, overlay mode); otherwise only a baseline
	// that ran alone (first) may feed the layer.
	isolated bool
	baseline string // the pure baseline's name; "" when none feeds
	taken    bool   // its first job was given the harvest
	harvest  *warm.Harvest
	info     engine.HomeLayer

	mu     sync.Mutex
	dir    string   // what jobs stack now: the layer's, or the provisional one
	upper  string   // where the baseline's cache writes were kept
	caches []string // the cache dirs its environment named (overlay)
	first  bool     // the baseline ran alone first
	tool   string   // the command's name: a layer is cold for a tool none of its baselines ran

	dl *dlRun // checked downloads (layers_downloads.go); nil: the lockfiles name none
}

// startHome acquires the home layer for the run and, when it is cold,
// asks the engine to run the baseline alone first (cfg.First).
func startHome(cfg *engine.Config, store snap.Store, ws, baseline string) *homeRun {
	mode := cfg.Sandbox.Mode()
	h := &homeRun{kind: warm.HomeOverlay, isolated: cfg.Net != "host" && cfg.Tmp != "shared", baseline: baseline, root: warm.HomeDir(store.Root), ws: ws}
	if mode == engine.ModeCopy {
		h.kind, h.isolated = warm.HomeCopy, false // copy mode has no network namespace per job
		if s, ok := engine.As[interface{ SealStatus() (string, string) }](cfg.Sandbox); ok {
			if seal, why := s.SealStatus(); seal == "" {
				// No private caches without the seal: the command writes
				// the user's own, which no layer can take back.
				h.info.Note = "not used: copy mode without the seal (" + why + ") gives the command the user's own caches"
				return h
			}
		}
	}
	l, err := warm.AcquireHome(h.root, h.ws, h.kind)
	if err == nil {
		h.layer, h.dir = l, l.Dir
		h.info.Used, h.info.Generation, h.info.Files, h.info.Bytes = true, l.Meta.Generation, l.Meta.Files, l.Meta.Bytes
	} else {
		h.info.Note = "not used: " + err.Error()
	}
	h.startDownloads(cfg)
	if baseline == "" {
		return h
	}
	if h.harvest, err = warm.NewHomeHarvest(h.root, h.ws, h.kind); err != nil {
		h.info.Note = strings.TrimPrefix(h.info.Note+"; ", "; ") + err.Error()
		return h
	}
	h.tool = filepath.Base(cfg.Command[0])
	if h.layer.Cold(h.tool) && len(cfg.Hyps) > 1 {
		// Cold: N hypotheses building from nothing at once cost N cold
		// builds; the baseline alone first, then N-1 warm ones, about one.
		cfg.First = baseline
		cfg.AfterFirst = h.afterFirst
		cfg.FirstWait = h.waitFirst
	}
	return h
}

// job gives a job the layer to stack and, for the feeding baseline's
// first job, where to leave its cache writes. The baseline is known by
// name: the run's hypotheses have unique names, and the pure baseline's
// job holds nothing but the checkout's files and shadow's own canary.
func (h *homeRun) job(job *engine.Job) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	job.HomeLayer = h.dir
	if h.kind == warm.HomeOverlay {
		job.HomeCaches = warm.HomeCaches(job.Env)
	}
	if h.baseline != "" && job.Hyp.Name == h.baseline && !h.taken && h.harvest != nil {
		h.taken = true
		job.KeepHome = h.harvest.Upper
		return
	}
	h.dl.keep(job)
}

// ended notes that the feeding baseline's job ended normally.
func (h *homeRun) ended(job engine.Job) {
	if h == nil || job.KeepHome == "" {
		return
	}
	h.mu.Lock()
	layer := h.dir
	h.mu.Unlock()
	if h.dl.ended(job, layer) {
		return
	}
	if h.dl != nil {
		h.dl.mu.Lock()
		h.dl.baseEnv = job.Env
		h.dl.mu.Unlock()
	}
	if _, err := os.Lstat(job.KeepHome); err != nil {
		return
	}
	h.mu.Lock()
	h.upper, h.caches = job.KeepHome, warm.HomeCaches(job.Env)
	h.mu.Unlock()
}

// afterFirst runs when the baseline, run alone, has ended: what it wrote
// to its caches becomes the generation every later job stacks. It becomes
// the layer's current one only at the run's end (finish), when the run
// shows the baseline could feed it (not stale, not cancelled).
func (h *homeRun) afterFirst(r *engine.Result) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.first = true
	h.info.BaselineFirst = true
	if r.Status != engine.StatusPassed && r.Status != engine.StatusFailed || h.upper == "" {
		return
	}
	t := time.Now()
	dir, files, bytes, err := h.harvest.Provisional(h.kind, h.caches, h.layer)
	h.info.PromoteMS += time.Since(t).Milliseconds()
	if err != nil {
		h.info.Note = strings.TrimPrefix(h.info.Note+"; ", "; ") + "baseline first: " + err.Error()
		return
	}
	h.dir = dir
	h.info.Used, h.info.Files, h.info.Bytes = true, files, bytes
}

// finish feeds the layer when why (the workspace layer's verdict on the
// baseline, "" when it may feed) allows, and fills the report's field.
func (h *homeRun) finish(w *warmRun, r *engine.Report, why string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if why == "" {
		why = baselineVerdict(r, h.baseline)
	}
	if why == "" && h.upper == "" {
		why = "the baseline's caches could not be kept beside the layer"
	}
	if why == "" && !h.isolated && !h.first {
		why = "the baseline ran beside candidates that could reach it (" + reach(h.kind) + "); only a baseline that runs alone feeds the layer then"
	}
	if why == "" {
		h.layer.Release()
		t := time.Now()
		var m *warm.Meta
		var err error
		if h.harvest.HasProvisional() {
			m, err = warm.CommitHome(h.root, h.ws, h.kind, h.harvest, r.Run, h.tool)
		} else {
			m, err = warm.UpdateHome(h.root, h.ws, h.kind, h.upper, h.caches, r.Run, h.tool)
		}
		h.info.PromoteMS += time.Since(t).Milliseconds()
		switch {
		case err != nil:
			why = err.Error()
		case m != nil:
			h.info.Updated = m.Generation
		}
	}
	if why != "" {
		h.info.Note = strings.TrimPrefix(h.info.Note+"; ", "; ") + "not updated: " + why
	}
	h.dl.finish(h, r.Run, why == "")
	info := h.info
	if r.Warm != nil {
		r.Warm.Home = &info
	}
	h.harvest.Remove()
}

func reach(kind warm.HomeKind) string {
	if kind == warm.HomeCopy {
		return "copy mode shares the host's network"
	}
	return "--net host or --tmp shared"
}

func (h *homeRun) release() {
	if h == nil {
		return
	}
	h.layer.Release()
	h.harvest.Remove()
	h.dl.release()
	h.tidy()
}

// baselineVerdict is why the run's baseline may not feed a layer ("" when
// it may): it must have run to its end, in a run that was not cancelled,
// on a checkout that did not change meanwhile.
func baselineVerdict(r *engine.Report, name string) string {
	if name == "" {
		return "no hypothesis without edits (a baseline) ran only the checkout's own files"
	}
	var res *engine.Result
	for _, h := range r.Hypotheses {
		if h.Name == name {
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
	}
	return ""
}

func (h *homeRun) tidy() { warm.TidyHome(h.root, h.ws, h.kind) }
