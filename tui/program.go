package tui

import (
	"context"
	"errors"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mattn/go-isatty"
	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// RunFunc runs the engine: it must send every event to sink and return
// only when every sandbox is cleaned up.
type RunFunc func(ctx context.Context, sink func(engine.Event)) (*engine.Report, error)

// Live shows a run made by this process full screen on the terminal. ctx
// must end on SIGINT and SIGTERM (signal.NotifyContext): Live leaves
// signals to it. run
// is started in a goroutine; its events reach the screen through
// program.Send. Quitting during the run (after the user confirms)
// cancels it; Live always waits for run to return before it returns, so
// no sandbox outlives the screen. The report is nil when run failed.
func Live(ctx context.Context, opts Options, run RunFunc) (*engine.Report, error) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts.Live = true
	opts.Cancel = cancel
	opts = withTerminal(opts)
	m := New(opts)
	// bubbletea's own signal handler is off: ctx already ends on SIGINT and
	// SIGTERM (the caller's signal.NotifyContext), and the goroutine below
	// quits the program then. With both on, one SIGINT reached both; when
	// our Quit won, the event loop was gone before bubbletea's handler sent
	// its InterruptMsg on the unbuffered message channel (v1.3.10 sends
	// without a select), so that send blocked forever and Program.Run's
	// shutdown waited on it forever: a frozen screen after Ctrl-C.
	prog := tea.NewProgram(m, append(programOptions(opts), tea.WithoutSignalHandler())...)
	defer alternateScroll()()
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
	final, perr := prog.Run()
	close(stop)
	// The screen is gone: a run still going (SIGTERM, a program error) is
	// cancelled, and waited for, so no sandbox is left behind.
	cancel()
	res := <-done
	if perr != nil && !errors.Is(perr, tea.ErrInterrupted) && !errors.Is(perr, tea.ErrProgramKilled) {
		return res.rep, perr
	}
	if fm, ok := final.(*Model); ok && fm.Cancelled() && res.err == nil {
		return res.rep, ErrCancelled
	}
	return res.rep, res.err
}

// ErrCancelled: the user cancelled the live run from the screen (Ctrl-C,
// or q confirmed); Live returns it with the cancelled run's report.
var ErrCancelled = errors.New("the run was cancelled from the screen")

// Watch follows, full screen, the runs other processes record for
// opts.Workspace in opts.Store, until the user quits. The runs and their
// events come from snap.Follow; a message re-armed after each delivery
// carries them into the program.
func Watch(opts Options) error {
	if opts.Store == nil {
		return errors.New("watch needs the snapshot store")
	}
	opts.Watch = true
	opts = withTerminal(opts)
	defer alternateScroll()()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // ends the follower, which closes its channel
	m := New(opts)
	m.followCh = snap.Follow(ctx, opts.Store.WorkspaceDir(opts.Workspace), snap.FollowOptions{})
	_, err := tea.NewProgram(m, programOptions(opts)...).Run()
	if errors.Is(err, tea.ErrInterrupted) {
		return nil
	}
	return err
}

// withTerminal fills in the look of stdout (terminalLook) unless the
// caller chose a renderer.
func withTerminal(opts Options) Options {
	if opts.Renderer == nil {
		l := terminalLook()
		opts.Renderer, opts.Mono, opts.ASCII = l.Renderer, l.Mono, l.ASCII
	}
	return opts
}

// programOptions: the alternate screen, and the mouse only when asked
// for: capturing it takes text selection away from the terminal and tmux.
func programOptions(opts Options) []tea.ProgramOption {
	o := []tea.ProgramOption{tea.WithAltScreen()}
	if opts.Mouse {
		o = append(o, tea.WithMouseCellMotion())
	}
	return o
}

// alternateScroll asks the terminal to send the wheel as ↑/↓ on the
// alternate screen (xterm's DECSET 1007, which VTE, kitty, iTerm2,
// Windows Terminal and tmux with its mouse off do by default), so the
// wheel scrolls without the program capturing the mouse. The returned
// func resets it.
func alternateScroll() func() {
	if !isatty.IsTerminal(os.Stdout.Fd()) {
		return func() {}
	}
	os.Stdout.WriteString("\x1b[?1007h")
	return func() { os.Stdout.WriteString("\x1b[?1007l") }
}
