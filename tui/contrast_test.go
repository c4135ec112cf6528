package tui

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

// An outlier shows at a glance (docs/report.md, "Contrast"): its
// leaderboard row says odd, and picking it shows what only it does above
// its diff.
func TestContrastShowsInLeaderboardAndDiff(t *testing.T) {
	m := sixDone(t, termenv.Ascii, 100, 30)
	for range 4 { // fix_all, edit_tests, flaky, fix_add, fix_div
		m.Update(press("right"))
	}
	frame := m.View()
	checkFits(t, frame, 100, 30)
	row, pane := false, false
	for _, l := range strings.Split(frame, "\n") {
		if f := strings.Fields(l); len(f) > 3 && strings.Contains(l, "fix_div") && strings.Contains(l, " odd ") {
			row = true
		}
		if strings.Contains(l, "contrast: only it edits runner config setup.cfg") {
			pane = true
		}
	}
	if !row || !pane {
		t.Errorf("fix_div: odd in its row %v, contrast above its diff %v:\n%s", row, pane, frame)
	}
}
