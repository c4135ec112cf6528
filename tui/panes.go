package tui

// The root model's panes: each holds only its own state.

// selection is the selected hypothesis, by name, so that it stays on the
// same hypothesis while ranks change under it.
type selection struct {
	name   string
	moved  bool // the user picked it: a run's end does not move it to the winner
	colOff int  // index of the first column in view
}

// prompt is a question waiting for y/N.
type prompt struct {
	kind confirmKind
	hyp  string
	run  string // set when the hypothesis to apply is a recorded one
}

// diffPane is the selected hypothesis's diff and failure tail.
type diffPane struct {
	p       pager
	key     string              // what p holds: run/hyp/state/width
	memo    map[string][]string // highlighted diffs, by run/hyp/width
	summary string              // the selected hypothesis's one-line state, for the pane's rule
}

// outputPane is the full-output view of one hypothesis.
type outputPane struct {
	open    bool
	hyp     string
	p       pager
	idx     *logIndex // the log on disk; nil while indexing, or for lines held in memory
	note    string    // what the title says besides the position (reading…, an error)
	loading int       // the window being read, -1 none
	found   string    // "no match for …", or ""
}

// queryBox is the search query being typed after /, for the output view
// or the diff, whichever is on screen.
type queryBox struct {
	typing bool
	input  string
	// filter: what is typed filters the leaderboard by name (/ there)
	// rather than searching the output or the diff.
	filter bool
}

// timelinePane is the workspace's recorded runs.
type timelinePane struct {
	runs   []runRow
	sel    int
	pinned bool // the user moved the selection
	lister *runLister
	want   string // the run picked, being read
}
