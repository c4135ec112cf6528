package tui

import (
	"context"
	"errors"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// RunFunc runs the engine: it must send every event to sink and return
// only when every sandbox is cleaned up.
type RunFunc func(ctx context.Context, sink func(engine.Event)) (*engine.Report, error)

// Live shows a run made by this process full screen on the terminal. run
// is started in a goroutine; its events reach the screen through
// program.Send. Quitting during the run (after the user confirms)
// cancels it; Live always waits for run to return before it returns, so
// no sandbox outlives the screen. The report is nil when run failed.
func Live(ctx context.Context, opts Options, run RunFunc) (*engine.Report, error) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts.Live = true
	opts.Cancel = cancel
	if opts.Renderer == nil {
		opts.Renderer = terminalRenderer()
	}
	m := New(opts)
	prog := tea.NewProgram(m, tea.WithAltScreen())
	type result struct {
		rep *engine.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := run(runCtx, func(ev engine.Event) { prog.Send(EventMsg(ev)) })
		done <- result{rep, err}
		prog.Send(RunDoneMsg{Report: rep, Err: err})
		if ctx.Err() != nil { // a signal ended the run: leave the screen
			prog.Quit()
		}
	}()
	// A signal after the run has ended (SIGHUP when the terminal or tmux
	// pane closes, SIGTERM) must still close the screen: the run goroutine
	// above is gone by then.
	stop := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			prog.Quit()
		case <-stop:
		}
	}()
	_, perr := prog.Run()
	close(stop)
	// The screen is gone: a run still going (SIGTERM, a program error) is
	// cancelled, and waited for, so no sandbox is left behind.
	cancel()
	res := <-done
	if perr != nil && !errors.Is(perr, tea.ErrInterrupted) && !errors.Is(perr, tea.ErrProgramKilled) {
		return res.rep, perr
	}
	return res.rep, res.err
}

// Watch follows, full screen, the runs other processes record for
// opts.Workspace in opts.Store, until the user quits. The runs and their
// events come from snap.Follow; a message re-armed after each delivery
// carries them into the program.
func Watch(opts Options) error {
	if opts.Store == nil {
		return errors.New("watch needs the snapshot store")
	}
	opts.Watch = true
	if opts.Renderer == nil {
		opts.Renderer = terminalRenderer()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // ends the follower, which closes its channel
	m := New(opts)
	m.followCh = snap.Follow(ctx, opts.Store.WorkspaceDir(opts.Workspace), snap.FollowOptions{})
	_, err := tea.NewProgram(m, tea.WithAltScreen()).Run()
	if errors.Is(err, tea.ErrInterrupted) {
		return nil
	}
	return err
}

// terminalRenderer is the renderer of stdout: its colour profile follows
// the terminal and NO_COLOR. The background is asked for now, before the
// program owns the terminal's input.
func terminalRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(os.Stdout)
	r.HasDarkBackground()
	return r
}
