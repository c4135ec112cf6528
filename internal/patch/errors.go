package patch

import (
	"fmt"
	"strings"
)

// SyntaxError is a patch whose text cannot be read as a unified diff: the
// line (from 1) where reading stopped, that line's text, and why.
type SyntaxError struct {
	Line    int
	Text    string // the line without its terminator, "" past the end
	Section string // the "diff --git" line of the section it is in, if any
	Msg     string
}

func (e *SyntaxError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "patch line %d", e.Line)
	if e.Text != "" {
		fmt.Fprintf(&b, " %q", e.Text)
	}
	if e.Section != "" && e.Section != e.Text {
		fmt.Fprintf(&b, " (section %q)", e.Section)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// hints say what go-gitdiff's terse messages usually mean in a patch that
// a person or a model wrote, keyed by the start of the message.
var hints = []struct{ prefix, hint string }{
	{"git file header: inconsistent", "a ---/+++ line names another file than the section's header or rename/copy lines"},
	{"git file header: missing filename", "the section names no file, or a rename/copy lacks its from or to line"},
	{"git file header: missing name", "an empty name, or a quoted name without its closing quote"},
	{"fragment header miscounts lines", "the hunk header's counts do not match its lines (a hunk cut short, or edited by hand)"},
	{"invalid line operation", "a hunk line must start with ' ', '-' or '+' (or the hunk header's counts do not match its lines)"},
	{"invalid fragment header", "a hunk header reads @@ -START[,COUNT] +START[,COUNT] @@"},
}

func withHint(msg string) string {
	for _, h := range hints {
		if strings.HasPrefix(msg, h.prefix) {
			return msg + ": " + h.hint
		}
	}
	return msg
}

// ConflictError is a hunk whose old lines are not found in the file, at
// the stated line or anywhere after the previous hunk.
type ConflictError struct {
	File string // the section's path, with the source of a rename or copy
	Hunk int    // from 1, in the section
	Line int    // the line the hunk header states
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("patch does not apply: %s hunk %d at line %d", e.File, e.Hunk, e.Line)
}
