package engine

import "time"

// startRun starts the clock, writes the report's head and emits
// run_started: before the sandbox holds the run (Holder) and before the
// checkout is read.
func startRun(cfg *Config) *runState {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	rs := &runState{cfg: cfg, now: now, em: newEmitter(cfg.RunID, cfg.Emit, now), started: now()}
	rs.rep = &Report{
		Schema: ReportSchema, Run: cfg.RunID, Workspace: cfg.Workspace, Subdir: cfg.Subdir,
		Command: cfg.Command, Mode: string(cfg.Sandbox.Mode()), StartedAt: rs.started.UTC(),
		StalePaths: []string{}, Applied: []string{},
		CPUs: cpus(), Load: loadAvg(), Shard: cfg.Shard,
		Judged: !cfg.AllowTestEdits, AllowSuspicious: cfg.AllowSuspicious,
	}
	rs.copyCost = startCopyCost(cfg.Sandbox)
	names := make([]string, len(cfg.Hyps))
	for i, h := range cfg.Hyps {
		names[i] = h.Name
	}
	rs.jobs = cfg.Jobs
	if rs.jobs <= 0 || !cfg.Sandbox.Parallel() {
		rs.jobs = 1
	}
	rs.em.emit(Event{Kind: KindRunStarted, Hypotheses: names, Mode: rs.rep.Mode, Command: cfg.Command, Workspace: cfg.Workspace, Jobs: rs.jobs})
	return rs
}

// openCheckout reads the checkout as the run found it and sets the
// staleness watch, once the sandbox holds the run.
func (rs *runState) openCheckout() {
	cfg := rs.cfg
	if s, ok := As[SyncReporter](cfg.Sandbox); ok {
		rs.rep.Sync = s.Syncs()
	}
	rs.orig = ReadOriginals(cfg.Workspace, cfg.Hyps)
	// Every watch is set before the first hypothesis starts (engine/stale,
	// watch.go).
	rs.stale = StartStaleWatch(cfg.Workspace, cfg.ScanExclude...)
}
