package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/tui"
)

// runTUI shows a run full screen (package tui, on the process's terminal).
// Originals are read before the run starts, so that `a` in the TUI can
// refuse to apply over a file that changed meanwhile, as --apply does.
// After the screen closes, the text report is printed, so the result stays
// in the terminal's scrollback.
func runTUI(ctx context.Context, p *run.Plan, ui uiChoice, s Streams) error {
	opts := tui.Options{
		Workspace: p.Workspace(),
		Hyps:      p.Hypotheses(),
		Originals: engine.ReadOriginals(p.Workspace(), p.Hypotheses()),
		// Plain `shadow SPEC`: the screen closes with the run unless
		// someone used it (a harness's pty never types); `shadow tui` stays.
		CloseWhenDone: ui == autoUI,
	}
	if p.Recorded() {
		store := p.Store()
		opts.Store = &store
	}
	rep, err := tui.Live(ctx, opts, func(ctx context.Context, sink func(engine.Event)) (*engine.Report, error) {
		return p.Run(ctx, sink)
	})
	if rep == nil {
		if err != nil {
			return envErr("%v", err)
		}
		return exit(run.ExitEnv)
	}
	userCancel := errors.Is(err, tui.ErrCancelled)
	if err != nil && !userCancel {
		fmt.Fprintln(s.Err, "shadow: tui:", err)
	}
	writeTextReport(s.Out, rep, false)
	if userCancel && rep.Cancelled {
		// Ctrl-C in the screen is the same interrupt as SIGINT outside it.
		return exit(run.ExitInterrupted)
	}
	return exit(run.ExitCode(ctx, rep))
}
