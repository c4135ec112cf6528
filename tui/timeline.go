package tui

import (
	"fmt"
	"strings"

	"github.com/shadow-dev/shadow/internal/records"
)

// renderTimeline lists the recorded runs of the workspace, newest last,
// the selected one marked; liveID is the run this screen follows
// (● running; another process's run going is ○ running).
func renderTimeline(st Styles, runs []runRow, sel int, liveID string, w, h int) string {
	if h <= 0 {
		return ""
	}
	if len(runs) == 0 {
		return fit(st.Dim.Render("no recorded runs of this workspace yet"), w, h)
	}
	// Keep the selection in view, preferring the newest runs.
	first := max(len(runs)-h, 0)
	if sel < first {
		first = sel
	}
	idW := 8
	for _, r := range runs {
		idW = max(idW, len(r.ID))
	}
	idW = min(idW, 32)
	var out []string
	for i := first; i < len(runs) && len(out) < h; i++ {
		r := runs[i]
		when := "          "
		if !r.StartedAt.IsZero() {
			when = r.StartedAt.Local().Format("Jan 02 15:04:05")
		}
		// The state's word is records.RunWord's, as shadow log says it;
		// the timeline adds its glyphs and the winner.
		var state string
		g := st.g
		switch word := records.RunWord(r.State, r.Cancelled, r.Stopped); {
		case word == records.WordInterrupted:
			state = st.Warn.Render(g.Failed + " " + word)
		case word == records.WordRunning && r.ID == liveID:
			state = st.Running.Render("● " + word)
		case word == records.WordRunning: // another process's run
			state = st.Running.Render("○ " + word)
		case word == records.WordCancelled && r.Winner != "": // cancelled after a winner was known
			state = st.Warn.Render(g.Cancelled+" "+word+" ") + st.Winner.Render(g.Winner+" "+r.Winner)
		case word == records.WordCancelled:
			state = st.Warn.Render(g.Cancelled + " " + word)
		case word == records.WordStopped:
			state = st.Failed.Render(g.Error + " " + word)
		case r.Winner != "":
			state = st.Winner.Render(g.Winner + " " + r.Winner)
		default:
			state = st.Failed.Render("no winner")
		}
		hyps := ""
		if r.Hyps > 0 {
			hyps = fmt.Sprintf("%d hyp", r.Hyps)
		}
		line := fmt.Sprintf("%s  %s  %s  %s  %s", pad(r.ID, idW), when, pad(state, 22), padLeft(hyps, 6), st.Dim.Render(strings.Join(r.Command, " ")))
		mark := "  "
		if i == sel {
			mark = st.g.Sel + " "
			line = st.Selected.Render(pad(mark+stripped(line), w))
		} else {
			line = mark + line
		}
		out = append(out, line)
	}
	return fit(strings.Join(out, "\n"), w, h)
}
