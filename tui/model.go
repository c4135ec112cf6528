// Package tui is shadow's full-screen terminal UI (bubbletea v1): live
// columns of the hypotheses running, a leaderboard, the highlighted diff
// of the winner or of the selected hypothesis, its output, and the
// workspace's timeline of recorded runs. It consumes the engine's event
// stream only; it never runs work inside Update (I/O happens in tea.Cmds).
package tui

import (
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// Options configure a Model.
type Options struct {
	// Renderer decides the colour profile (NO_COLOR, 256 colours); nil
	// means lipgloss's default renderer.
	Renderer *lipgloss.Renderer
	// Mono: the terminal does attributes but no colours; ASCII: it cannot
	// show UTF-8 (see terminalLook).
	Mono, ASCII bool
	// Mouse captures the mouse from the start (wheel scrolling without
	// tmux's alternate-scroll; m toggles it).
	Mouse bool
	// Workspace is the checkout apply writes to.
	Workspace string
	// Store is the snapshot store holding Workspace's records, for the
	// timeline, watch and applying a recorded hypothesis; nil (a run with
	// --no-record) shows no timeline.
	Store *snap.Store
	// Live: a run made by this process, whose events arrive as EventMsg
	// and whose end arrives as RunDoneMsg.
	Live bool
	// Watch: follow the runs other processes record in Store (see Watch).
	Watch bool
	// Hyps and Originals let `a` apply a hypothesis of the live run.
	Hyps      []engine.Hypothesis
	Originals map[string]engine.FileState
	// Cancel cancels the live run (after the user confirms).
	Cancel func()
	// CloseWhenDone: the live screen closes by itself when the run ends
	// unless a key or the mouse was used meanwhile (plain `shadow SPEC`;
	// `shadow tui` stays). A harness that gives shadow a pseudo-terminal
	// but never types (script(1), an agent's PTY tool) then gets the text
	// report at the end instead of a screen waiting for q forever.
	CloseWhenDone bool
	// Now is the clock; nil = time.Now (tests pin it).
	Now func() time.Time
	// Tick is the redraw interval while something moves; 0 = frameTick.
	Tick time.Duration
}

// frameTick is the default redraw interval: output arriving between two
// ticks is drawn once, at the next. 100ms (10 frames a second, the
// spinners' usual rate) is as often as there is anything new to show under
// a flood: the engine sends each hypothesis's output at most every 100ms
// (engine's coalesce), and each frame redraws every column, so a faster
// tick only spent CPU (bench/tui_cpu.sh). Keys and resizes are drawn at
// once, not at the tick.
const frameTick = 100 * time.Millisecond

// EventMsg carries one engine event of the live run into the program.
type EventMsg engine.Event

// RunDoneMsg says the engine returned: every sandbox is cleaned up. Err
// is set when the run could not be made at all.
type RunDoneMsg struct {
	Report *engine.Report
	Err    error
}

type pane int

const (
	paneColumns pane = iota
	paneLeaderboard
	paneDiff
	paneTimeline
	paneCount
)

var paneNames = [...]string{"columns", "leaderboard", "diff", "timeline"}

type confirmKind int

const (
	confirmNone confirmKind = iota
	confirmQuit
	confirmApply
)

// Model is the root model: the run shown and a few panes, each a small
// struct with its own state (panes.go). Update folds messages in and lays
// the screen out (layout.go) whenever something changed; View only reads
// the frame that layout drew. It is used by pointer.
type Model struct {
	opts   Options
	st     Styles
	keys   KeyMap
	help   help.Model
	now    func() time.Time
	width  int
	height int

	live  *runView // the run of this process, or the run watch follows
	shown *runView // what the panes show: live, or a run picked in the timeline

	focus  pane
	sel    selection
	ask    prompt
	status string
	mouse  bool // the mouse is captured (m toggles)
	query  queryBox
	// lbFilter keeps the leaderboard's rows whose name holds it (/ on the
	// leaderboard; esc clears it).
	lbFilter string

	diff diffPane
	out  outputPane
	tl   timelinePane

	// watch: what snap.Follow yields, and the views of the runs it
	// follows, by run id (live is the newest).
	followCh <-chan snap.Followed
	followed map[string]*runView

	engineDone bool
	quitting   bool // cancel confirmed: quit when the engine is done
	cancelled  bool // the user cancelled the live run (Ctrl-C, or q and y)
	touched    bool // a key or the mouse was used (CloseWhenDone)
	report     *engine.Report

	lay      layout
	frameN   int
	frame    string
	dirty    bool
	pending  bool // events arrived since the last frame
	lastDraw time.Time
}

// New makes the root model.
func New(opts Options) *Model {
	r := opts.Renderer
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	opts.Renderer = r
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	if opts.Tick <= 0 {
		opts.Tick = frameTick
	}
	st := newStyles(Look{Renderer: r, Mono: opts.Mono, ASCII: opts.ASCII})
	h := help.New()
	h.Styles.ShortKey, h.Styles.FullKey = st.HelpKey, st.HelpKey
	h.Styles.ShortDesc, h.Styles.FullDesc = st.HelpDesc, st.HelpDesc
	h.Styles.ShortSeparator, h.Styles.FullSeparator = st.HelpSep, st.HelpSep
	h.Styles.Ellipsis = st.HelpSep
	m := &Model{
		opts: opts, st: st, keys: DefaultKeyMap(), help: h, now: now,
		diff: diffPane{memo: map[string][]string{}}, followed: map[string]*runView{}, dirty: true,
	}
	m.diff.p.match, m.out.p.match = -1, -1
	m.out.loading = -1
	m.mouse = opts.Mouse
	if opts.Live {
		m.live = newRunView("")
		m.live.workspace = opts.Workspace
		m.shown = m.live
	}
	if opts.Store != nil {
		m.tl.lister = newRunLister(*opts.Store, opts.Workspace)
	}
	if opts.Watch {
		m.status = "watching " + opts.Workspace + " for runs"
	}
	return m
}

// Report is the live run's report once the engine returned (nil before).
func (m *Model) Report() *engine.Report { return m.report }

// Cancelled says the user cancelled the live run from the screen (Ctrl-C,
// or q confirmed while it ran): the caller exits 130 as for SIGINT.
func (m *Model) Cancelled() bool { return m.cancelled }

// Init starts the redraw tick, the first timeline read and, for watch,
// the wait for what the follower yields.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.tick()}
	if m.tl.lister != nil {
		cmds = append(cmds, m.loadTimeline())
	}
	if m.followCh != nil {
		cmds = append(cmds, waitFollow(m.followCh))
	}
	return tea.Batch(cmds...)
}
