package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/shadow-dev/shadow/engine"
)

// A finished hypothesis's reason (engine's one line) heads its column.
func TestColumnShowsTheReason(t *testing.T) {
	evs := liveEvents()
	for i := range evs {
		if evs[i].Kind == engine.KindHypFinished && evs[i].Hyp == "baseline" {
			r := *evs[i].Result
			r.Reason = sp("TestAdd: calc_test.go:9: Add(2, 3) = -1, want 5")
			evs[i].Result = &r
		}
	}
	m := newTestModel(t, termenv.Ascii, 120, 40, evs)
	frame := ansi.Strip(m.View())
	if !strings.Contains(frame, "TestAdd: calc_test.go:9:") {
		t.Errorf("the reason is not in the baseline's column:\n%s", frame)
	}
}
