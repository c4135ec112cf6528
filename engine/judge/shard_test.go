package judge

import (
	"github.com/shadow-dev/shadow/engine/report"

	"bytes"
	"fmt"
	"strings"
	"testing"
)

// A run of 200 candidates that all pass alike must not print 199 names on
// every row and in the tie line: the text report caps both.
func TestTextReportCapsLongTies(t *testing.T) {
	var hs []*Result
	var names []string
	for i := 0; i < 50; i++ {
		names = append(names, fmt.Sprintf("h%d", i))
	}
	for i, n := range names {
		others := append(append([]string{}, names[:i]...), names[i+1:]...)
		hs = append(hs, &Result{Name: n, Rank: i + 1, Status: StatusPassed, TiesWith: others})
	}
	w := "h0"
	var b bytes.Buffer
	report.WriteText(&b, &Report{Schema: ReportSchema, Command: []string{"true"}, Winner: &w, Hypotheses: hs})
	out := b.String()
	if strings.Contains(out, "h48, h49") || !strings.Contains(out, "and 44 more") || !strings.Contains(out, "and 42 more") {
		t.Errorf("ties not capped:\n%.2000s", out)
	}
}
