package main

import (
	"context"
	"fmt"
	"os"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/tui"
)

// runTUI shows a run full screen (package tui) and returns its exit code.
// Originals are read before the run starts, so that `a` in the TUI can
// refuse to apply over a file that changed meanwhile, as --apply does.
// After the screen closes, the text report is printed, so the result stays
// in the terminal's scrollback.
func runTUI(ctx context.Context, p *run.Plan) int {
	opts := tui.Options{
		Workspace: p.Workspace(),
		Hyps:      p.Hypotheses(),
		Originals: engine.ReadOriginals(p.Workspace(), p.Hypotheses()),
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
			fmt.Fprintln(os.Stderr, "shadow:", err)
		}
		return exitEnv
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "shadow: tui:", err)
	}
	engine.WriteText(os.Stdout, rep)
	return run.ExitCode(rep)
}
