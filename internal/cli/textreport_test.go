package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// The text report is written through termSafe: a winner whose diff holds
// an OSC 52 clipboard write and a title change, and a reason with a CSI,
// reach the terminal as text without them, coloured or not.
func TestTextReportDropsTheHypothesesEscapes(t *testing.T) {
	w := "fix"
	reason := "boom\x1b[2J"
	rep := &engine.Report{Command: []string{"true"}, Mode: "overlay", Workspace: "/w", Winner: &w,
		Hypotheses: []*engine.Result{{Name: "fix", Status: engine.StatusPassed, Diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\x1b]52;c;ZXZpbA==\x07\x1b]0;owned\x07\n"},
			{Name: "bad", Status: engine.StatusFailed, Reason: &reason}}}
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		writeTextReport(&b, rep, color)
		out := b.String()
		if strings.Contains(out, "]52;") || strings.Contains(out, "owned") || strings.Contains(out, "[2J") {
			t.Errorf("color %v: a hypothesis's escape sequence reached the terminal:\n%q", color, out)
		}
		if !strings.Contains(out, "+b") {
			t.Errorf("color %v: the diff's text is gone:\n%q", color, out)
		}
	}
}
