package report

import (
	"fmt"
	"io"
	"strings"
)

// The verdict part of the text report: a mark per row (disqualified, flaky,
// tie) and the notes under the table that say what the marks mean.

// rowMarks are the bracketed marks after a row.
func rowMarks(r *Report, h *Result) []string {
	var m []string
	if h.Disqualified != nil {
		m = append(m, "disqualified: "+*h.Disqualified)
	} else if len(h.EditsTests) > 0 && h.Status == StatusPassed && !r.Judged {
		m = append(m, "changes tests, allowed: "+ListShort(h.EditsTests, 3))
	}
	if cm := contrastMark(h); cm != "" {
		m = append(m, cm)
	}
	if tm := testsFromMark(h); tm != "" {
		m = append(m, tm)
	}
	if pm := proposedMark(r, h); pm != "" {
		m = append(m, pm)
	}
	if h.Tampered != nil {
		m = append(m, "tampered: "+*h.Tampered)
	}
	if h.Suspicious != nil {
		s := "suspicious: " + *h.Suspicious
		if r.AllowSuspicious && h.Status == StatusPassed {
			s = "suspicious, allowed: " + *h.Suspicious
		}
		m = append(m, s)
	}
	if h.Status == StatusFailed && h.ExitCode != nil && *h.ExitCode == 0 && h.Tests != nil && h.Tests.Failed > 0 {
		m = append(m, "exit 0 despite failing tests: failed")
	}
	if h.Runs > 1 {
		s := fmt.Sprintf("passed %d of %d runs", h.Passes, h.Runs)
		if len(h.Flaky) > 0 {
			s += ", flaky: " + ListShort(h.Flaky, 3)
		}
		m = append(m, s)
	}
	if len(h.TiesWith) > 0 {
		// Capped: 200 passing baselines-alike would fill a screen a row.
		m = append(m, "ties with "+ListShort(h.TiesWith, 5))
	}
	return m
}

// lostNotChecked says why no candidate's lost tests could be counted: no
// baseline at all, or one (a hypothesis that changed nothing) whose run
// gave no test counts, most often because its command could not run.
func lostNotChecked(r *Report) string {
	for _, h := range r.Hypotheses {
		if h.ChangedLines != 0 || h.Diff != "" || h.Tests != nil {
			continue
		}
		why := statusCell(h)
		if h.Reason != nil && *h.Reason != "" {
			why += ": " + *h.Reason
		}
		return fmt.Sprintf("lost tests not checked: the baseline %s gave no test counts (%s); make its command run the tests (shadow show RUN/%s has its output)", h.Name, why, h.Name)
	}
	return "lost tests not checked: no baseline with test counts (add --baseline, or a hypothesis with no edits)"
}

// writeVerdictNotes explains what the table cannot: lost tests that could
// not be checked, and ties an agent should break with a new test.
func writeVerdictNotes(w io.Writer, r *Report) {
	checked := false
	for _, h := range r.Hypotheses {
		if h.LostTests != nil {
			checked = true
		}
	}
	if !checked && len(r.Hypotheses) > 0 {
		fmt.Fprintln(w, lostNotChecked(r))
	}
	writeJudgedNotes(w, r)
	crossRan := writeCrossNotes(w, r)
	seen := map[string]bool{}
	for _, h := range r.Hypotheses {
		if len(h.TiesWith) == 0 || seen[h.Name] {
			continue
		}
		group := append([]string{h.Name}, h.TiesWith...)
		for _, n := range group {
			seen[n] = true
		}
		same := "the same test outcomes"
		if crossRan {
			same += " and pass the same reproductions"
		}
		fmt.Fprintf(w, "tie: %s have %s; a test that tells them apart would decide\n", ListShort(group, 8), same)
	}
}

// noWinnerLine says why there is no winner.
func noWinnerLine(r *Report) string {
	var dq, forged, unconfirmed []string
	for _, h := range r.Hypotheses {
		switch {
		case h.Status == StatusPassed && h.Disqualified != nil:
			dq = append(dq, h.Name)
		case h.Status == StatusPassed && (h.Tampered != nil || (h.Suspicious != nil && !r.AllowSuspicious)):
			forged = append(forged, h.Name)
		case h.Runs > 1 && h.Passes > 0 && h.Passes < h.Runs:
			unconfirmed = append(unconfirmed, h.Name)
		}
	}
	switch {
	case len(dq) > 0:
		return fmt.Sprintf("no winner: only disqualified hypotheses passed (%s); --allow-test-edits lets a candidate that changes the tests win", strings.Join(dq, ", "))
	case len(forged) > 0:
		return fmt.Sprintf("no winner: only suspicious or tampered hypotheses passed (%s); --allow-suspicious lets a suspicious one win", strings.Join(forged, ", "))
	case len(unconfirmed) > 0:
		return fmt.Sprintf("no winner: %s passed, but not every --confirm rerun", strings.Join(unconfirmed, ", "))
	}
	for _, h := range r.Hypotheses {
		if h.Status == StatusPassed {
			return "no winner: no passing hypothesis was confirmed"
		}
	}
	return "no hypothesis passed"
}

func confirmedNote(r *Report) string {
	for _, h := range r.Hypotheses {
		if h.Name == *r.Winner && h.Runs > 1 {
			return fmt.Sprintf(" (confirmed: passed %d of %d runs)", h.Passes, h.Runs)
		}
	}
	return ""
}
