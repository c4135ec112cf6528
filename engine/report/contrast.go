package report

// Contrast is a candidate's contrastive note (docs/report.md, "Contrast"):
// what it does that no other passing candidate does, so an outlier among
// candidates that all pass shows at a glance.
type Contrast struct {
	// Note is the one line every view shows ("" when it does nothing the
	// others do not).
	Note string `json:"note"`
	// Files: the files it writes or deletes that no other passing
	// candidate touches (runner configuration apart, in Configs).
	Files []string `json:"files"`
	// Configs: the runners' configuration files only it edits.
	Configs []string `json:"configs"`
	// Introspection: what only its code asks of the process or the runner,
	// as the judge-aware scan names it ("FILE:LINE what"): a rule no other
	// passing candidate's code matches.
	Introspection []string `json:"introspection"`
}

// contrastMark is a row's mark: its note, "" when it has none.
func contrastMark(h *Result) string {
	if h.Contrast == nil {
		return ""
	}
	return h.Contrast.Note
}
