package report

import (
	"fmt"
	"io"
	"strings"
)

// The judged run's and the cross phase's part of the text report: a mark
// per row for what a candidate proposes of the tests, a line for each
// candidate that passed its judged run only to fail another's
// reproduction, and the note of a candidate that needed its own test
// changes.

// proposedMark is the row mark of a candidate's proposed tests: how many,
// and how many reproduce the bug once the cross phase ran.
func proposedMark(r *Report, h *Result) string {
	if len(h.ProposedTests) == 0 {
		if r.Judged && len(h.JudgeEdits) > 0 {
			return "test changes not judged: " + ListShort(h.JudgeEdits, 3)
		}
		return ""
	}
	s := fmt.Sprintf("proposes %d test(s)", len(h.ProposedTests))
	known, repro := 0, 0
	for _, p := range h.ProposedTests {
		if p.Reproduces != nil {
			known++
			if *p.Reproduces {
				repro++
			}
		}
	}
	if known > 0 {
		s += fmt.Sprintf(", %d reproduce", repro)
	}
	return s
}

// writeCrossNotes writes a line per passing candidate that fails other
// candidates' reproductions, or one line saying every passing candidate
// passes them all; it reports whether the cross phase ran.
func writeCrossNotes(w io.Writer, r *Report) bool {
	ran, repros := false, map[string]bool{}
	for _, h := range r.Hypotheses {
		if h.Cross != nil {
			ran = true
			for _, c := range append(append(append([]CrossRef{}, h.Cross.Passed...), h.Cross.Failed...), h.Cross.Unweighed...) {
				repros[c.From+"\x00"+c.Test] = true
			}
		}
	}
	if !ran {
		return false
	}
	failing := false
	for _, h := range r.Hypotheses {
		if h.Cross == nil || len(h.Cross.Failed) == 0 {
			continue
		}
		failing = true
		var refs []string
		for _, f := range h.Cross.Failed {
			refs = append(refs, f.From+": "+f.Test)
		}
		fmt.Fprintf(w, "cross: %s fails %d reproduction(s) of other candidates (%s)\n", h.Name, len(refs), strings.Join(shortList(refs, 3), "; "))
	}
	for _, h := range r.Hypotheses {
		if h.Cross == nil || len(h.Cross.Unweighed) == 0 {
			continue
		}
		var refs []string
		for _, f := range h.Cross.Unweighed {
			refs = append(refs, f.From+": "+f.Test)
		}
		fmt.Fprintf(w, "cross: %s fails %d reproduction(s) only their proposer vouches for, not where the checkout fails them (%s): not counted\n", h.Name, len(refs), strings.Join(shortList(refs, 3), "; "))
	}
	if !failing && len(repros) > 0 {
		fmt.Fprintf(w, "cross: every passing candidate passes the other candidates' %d reproduction(s)\n", len(repros))
	}
	return true
}

func shortList(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
}

// writeJudgedNotes writes the note of each candidate that failed its
// judged run for want of its own test changes (neededNote).
func writeJudgedNotes(w io.Writer, r *Report) {
	for _, h := range r.Hypotheses {
		if h.Reason == nil {
			continue
		}
		if i := strings.Index(*h.Reason, JudgedNotePrefix); i >= 0 {
			fmt.Fprintf(w, "%s: %s\n", h.Name, (*h.Reason)[i:])
		}
	}
}

// JudgedNotePrefix starts the note a candidate that failed its judged run
// for want of its own test changes gets in its reason (docs/report.md
// "Ranking", the judge); the text writer finds the note by it.
const JudgedNotePrefix = "judged without its own test changes: "
