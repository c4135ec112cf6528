package tui

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"

	"github.com/shadow-dev/shadow/engine"
)

// A tampered or suspicious candidate says so in its row and, with why, in
// its diff pane's verdict lines.
func TestTamperedAndSuspiciousAreShown(t *testing.T) {
	st := NewStyles(renderer(termenv.Ascii))
	for _, c := range []struct {
		r          *engine.Result
		mark, line string
	}{
		{&engine.Result{Tampered: sp("the canary passed")}, "tampered", "tampered: the canary passed"},
		{&engine.Result{Suspicious: sp("code src/m.py:6 checks whether it runs under pytest")}, "suspicious", "suspicious: code src/m.py:6"},
		{&engine.Result{Tampered: sp("x"), Suspicious: sp("y")}, "tampered", "suspicious: y"},
	} {
		if got := marks(st, &hypState{result: c.r}); got != c.mark {
			t.Errorf("marks = %q, want %q", got, c.mark)
		}
		if got := strings.Join(verdictLines(st, c.r), "\n"); !strings.Contains(got, c.line) {
			t.Errorf("verdict lines %q lack %q", got, c.line)
		}
	}
}
