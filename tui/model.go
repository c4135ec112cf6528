// Package tui is shadow's full-screen terminal UI (bubbletea v1): live
// columns of the hypotheses running, a leaderboard, the highlighted diff
// of the winner or of the selected hypothesis, its output, and the
// workspace's timeline of recorded runs. It consumes the engine's event
// stream only; it never runs work inside Update (I/O happens in tea.Cmds).
package tui

import (
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/viewport"
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
	// Now is the clock; nil = time.Now (tests pin it).
	Now func() time.Time
	// Tick is the redraw interval while something moves; 0 = 50ms.
	Tick time.Duration
}

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

// Model is the root model. It is used by pointer: View caches the frame
// between redraws.
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

	focus      pane
	sel        int // selected hypothesis, index in shown.hyps (spec order)
	colOff     int
	userMoved  bool
	confirm    confirmKind
	confirmHyp string
	confirmRun string // set when the hypothesis to apply is a recorded one
	status     string

	diffVP    viewport.Model
	diffKey   string
	diffHyp   string
	outVP     viewport.Model
	outOpen   bool
	outHyp    string
	outBottom bool
	diffMemo  map[string][]string

	runs     []runRow
	tlSel    int
	tlPinned bool // the user moved the timeline selection
	lister   *runLister
	wantRun  string // the run picked in the timeline, being read

	// watch: what snap.Follow yields, and the views of the runs it
	// follows, by run id (live is the newest).
	followCh <-chan snap.Followed
	followed map[string]*runView

	engineDone bool
	quitting   bool // cancel confirmed: quit when the engine is done
	report     *engine.Report

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
		opts.Tick = 50 * time.Millisecond
	}
	st := NewStyles(r)
	h := help.New()
	h.Styles.ShortKey, h.Styles.FullKey = st.HelpKey, st.HelpKey
	h.Styles.ShortDesc, h.Styles.FullDesc = st.HelpDesc, st.HelpDesc
	h.Styles.ShortSeparator, h.Styles.FullSeparator = st.HelpSep, st.HelpSep
	h.Styles.Ellipsis = st.HelpSep
	m := &Model{
		opts: opts, st: st, keys: DefaultKeyMap(), help: h, now: now,
		diffVP: viewport.New(0, 0), outVP: viewport.New(0, 0),
		diffMemo: map[string][]string{}, followed: map[string]*runView{}, dirty: true,
	}
	if opts.Live {
		m.live = newRunView("")
		m.live.workspace = opts.Workspace
		m.shown = m.live
	}
	if opts.Store != nil {
		m.lister = newRunLister(*opts.Store, opts.Workspace)
	}
	if opts.Watch {
		m.status = "watching " + opts.Workspace + " for runs"
	}
	return m
}

// Report is the live run's report once the engine returned (nil before).
func (m *Model) Report() *engine.Report { return m.report }

// Init starts the redraw tick, the first timeline read and, for watch,
// the wait for what the follower yields.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.tick()}
	if m.lister != nil {
		cmds = append(cmds, m.loadTimeline())
	}
	if m.followCh != nil {
		cmds = append(cmds, waitFollow(m.followCh))
	}
	return tea.Batch(cmds...)
}
