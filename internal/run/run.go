package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// Run records the run (unless the options said not to), runs it with the
// given event consumers after the recorder, and finishes the record. An
// error means the run could not start (the record or --freeze's copy
// failed); a run that ends, however it ends, is a report.
func (p *Plan) Run(ctx context.Context, sinks ...func(engine.Event)) (*engine.Report, error) {
	now := time.Now()
	cfg := p.cfg
	// shadow's state dir and the directories above it, as they are before
	// any hypothesis runs: checked before the run's end reads or writes
	// them again (a hypothesis with no namespace could have moved them
	// and put its own in their place; fsutil.Pin).
	pin := fsutil.PinDirs(p.store.Root)
	cfg.RunID = snap.NewRunID(now)
	var fix func(*engine.Report) // a remote run's late changes
	remoteRun := p.remote
	// The layers beyond the checkout (--freeze's copy, the warm and home
	// layers: internal/sandbox.StackLayers), before the nodes are synced:
	// a frozen remote run's mirrors are synced from the copy.
	layers, err := sandbox.StackLayers(&cfg, sandbox.LayerOptions{Store: p.store, Freeze: p.freeze,
		NoWarm: p.noWarm, CopySkip: p.copySkip, Notices: p.notices})
	if err != nil {
		return nil, err
	}
	defer layers.Release()
	// The sources as the nodes' syncs start (a run not frozen): a change
	// made before the engine's own watch starts, while a node syncs late,
	// may reach some nodes and not others.
	var presync *engine.SourceState
	if remoteRun && !p.freeze {
		presync = engine.ScanSources(cfg.Workspace, cfg.ScanExclude...)
	}
	// Remote nodes are readied first: a run no node can take is refused
	// before anything is recorded.
	done, err := p.prepareRemote(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	defer done()
	if presync != nil {
		if changed := presync.Changed(cfg.Workspace); len(changed) > 0 {
			fmt.Fprintf(p.notices, "shadow: the checkout changed while the nodes were synced (%s): they may hold different versions of it; --freeze syncs every node from one copy\n", strings.Join(changed, ", "))
			fix = staleFix(changed)
		}
	}
	var rec *snap.Run
	var recorder func(engine.Event)
	if !p.noRecord {
		var err error
		rec, err = p.store.NewRunRetry(snap.Meta{Run: cfg.RunID, Workspace: cfg.Workspace, Subdir: cfg.Subdir,
			Command: cfg.Command, StartedAt: now.UTC(), PID: os.Getpid(), Hypotheses: hypNames(cfg.Hyps), Freeze: p.freeze}, p.specJSON)
		if err != nil {
			return nil, err
		}
		cfg.RunID = rec.ID
		if rec.KeyReplaced != "" {
			fmt.Fprintf(p.notices, "shadow: the state dir's integrity key was damaged; it is now %s and a new one records this run: runs recorded before can no longer be verified, and show, apply and base refuse them\n", rec.KeyReplaced)
		}
		rec.MaxEventOutput = cfg.MaxOutput / 4 // 0: snap's default
		p.recordInputs(rec, &cfg)
		cfg.LogDir = filepath.Join(rec.Dir, "hyps")
		recorder = func(ev engine.Event) { _ = rec.AppendEvent(ev) }
	} else {
		// Under $TMPDIR/shadow-UID, which every sandbox masks (ShadowDirs);
		// `shadow gc` sweeps it once this process is gone.
		dir, err := snap.NewScratch(overlay.TmpRoot(), cfg.RunID)
		if err != nil {
			return nil, err
		}
		cfg.LogDir = dir
	}
	// The report fixers complete the report before run_finished is
	// delivered: the staleness (a frozen run's, or the late syncs') first,
	// then the warm layer's field, which reads it.
	if fix != nil {
		cfg.FixReport = append(cfg.FixReport, fix)
	}
	cfg.FixReport = append(cfg.FixReport, layers.Fixers(pin.Check)...)
	// No consumer slows the commands (engine.Broker): the record gets
	// every event, the others may miss output while they lag.
	consumers := []engine.Consumer{{Sink: recorder, Lossless: true}}
	for _, s := range sinks {
		consumers = append(consumers, engine.Consumer{Sink: s})
	}
	broker := engine.NewBroker(consumers...)
	cfg.Emit = broker.Publish
	if n, ok := engine.As[engine.RunNamer](cfg.Sandbox); ok {
		n.SetRunID(cfg.RunID) // what --keep leaves on the nodes is kept under it
	}
	rep := engine.Run(ctx, cfg)
	broker.Close() // every consumer has had run_finished
	if err := pin.Check(); err != nil {
		rep.Error = "not recorded: " + err.Error()
		fmt.Fprintln(p.notices, "shadow:", rep.Error)
		return rep, nil
	}
	if rec != nil {
		if err := rec.Finish(rep); err != nil {
			fmt.Fprintln(p.notices, "shadow: record the report:", err)
		}
	}
	return rep, nil
}

// ExitCode is the exit code of a run that ended with rep: ExitInterrupted
// when it was cancelled because ctx ended (a signal), else ExitWinner when
// a hypothesis passed (and --apply, if asked, wrote it), else ExitNone.
// A run that finished before the signal keeps its result's code. A run
// that stopped because nothing was left to run it on (every remote node
// failed: the report's error) is ExitEnv, whatever had finished.
func ExitCode(ctx context.Context, rep *engine.Report) int {
	if rep.Cancelled && ctx.Err() != nil {
		return ExitInterrupted
	}
	if rep.Error != "" {
		return ExitEnv
	}
	if rep.Winner == nil || rep.ApplyError != "" {
		return ExitNone
	}
	return ExitWinner
}
