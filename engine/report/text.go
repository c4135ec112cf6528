package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/shadow-dev/shadow/internal/bytesize"
)

// WriteText writes the report in the article's layout: a header, one row
// per hypothesis in rank order, the winner and its diff, then the output
// tail of each hypothesis that did not pass.
func WriteText(w io.Writer, r *Report) {
	fmt.Fprintf(w, "$ %s   (%d hypothesis(es), %s mode%s, on %s)\n", shellJoin(r.Command), len(r.Hypotheses), r.Mode, sealNote(r.Seal), shortPath(r.Workspace))
	if len(r.BaselineFlaky) > 0 {
		fmt.Fprintf(w, "the baseline is flaky: %s changed outcome across its runs; they count as neither fixed nor broken\n", ListShort(r.BaselineFlaky, 5))
	}
	writeTestsFrom(w, r)
	width := 4
	for _, h := range r.Hypotheses {
		width = max(width, len(h.Name))
	}
	for _, h := range r.Hypotheses {
		fmt.Fprintf(w, "  %-*s  %-10s in %6.1fs  %s  %s", width, h.Name, statusCell(h), float64(h.DurationMS)/1000, countsCell(h), linesCell(h))
		if fb := fixesCell(h); fb != "" {
			fmt.Fprintf(w, "  %s", fb)
		}
		if r.Winner != nil && *r.Winner == h.Name && !r.Cancelled {
			fmt.Fprint(w, "  <- winner")
		}
		for _, m := range rowMarks(r, h) {
			fmt.Fprintf(w, "  [%s]", m)
		}
		fmt.Fprintln(w)
	}
	writeVerdictNotes(w, r)
	if r.Stale {
		fmt.Fprintf(w, "stale: the checkout changed while the run went on (%s); results may not match it\n", ListShort(r.StalePaths, 5))
	}
	if r.Warm != nil && r.Warm.Used {
		fmt.Fprintf(w, "warm layer: generation %d (%d file(s), %s of an earlier baseline's build outputs) under every hypothesis\n", r.Warm.Generation, r.Warm.Files, bytesize.Format(r.Warm.Bytes))
	}
	if r.Cancelled {
		fmt.Fprintln(w, "cancelled: the run was interrupted")
	}
	if r.Error != "" {
		fmt.Fprintf(w, "stopped: %s\n", r.Error)
	}
	switch {
	case r.Cancelled:
		// An interrupted run is unfinished: whatever passed before the
		// interrupt is in the table, but it did not win a race the others
		// never ran (the exit code is 130, not 0).
		fmt.Fprintln(w, "no winner: the run was interrupted before every hypothesis finished")
	case r.Winner == nil:
		if s := SameFailure(r); s != "" {
			fmt.Fprintln(w, s)
		} else {
			fmt.Fprintln(w, noWinnerLine(r))
		}
	default:
		fmt.Fprintf(w, "winner: %s%s\n", *r.Winner, confirmedNote(r))
		for _, h := range r.Hypotheses {
			if h.Name == *r.Winner {
				io.WriteString(w, h.Diff)
			}
		}
		if len(r.Applied) > 0 {
			fmt.Fprintf(w, "applied to the checkout: %s\n", strings.Join(r.Applied, ", "))
		}
		if r.ApplyError != "" {
			fmt.Fprintf(w, "%s\n", r.ApplyError)
		}
	}
	for _, h := range r.Hypotheses {
		if h.Status == StatusPassed || h.Status == StatusCancelled {
			continue
		}
		fmt.Fprintf(w, "\n--- %s: %s", h.Name, statusCell(h))
		if h.Error != nil {
			fmt.Fprintf(w, " (%s)", *h.Error)
		}
		if h.Log != "" {
			fmt.Fprintf(w, ", full output: %s", h.Log)
		}
		fmt.Fprintln(w)
		if h.Reason != nil {
			fmt.Fprintf(w, "reason: %s\n", *h.Reason)
		}
		tail := strings.TrimRight(h.OutputTail, "\n")
		if tail == "" {
			fmt.Fprintln(w, "(no output)")
			continue
		}
		fmt.Fprintln(w, tail)
	}
}

func statusCell(h *Result) string {
	switch h.Status {
	case StatusPassed, StatusFailed:
		if h.ExitCode != nil {
			return fmt.Sprintf("exit %d", *h.ExitCode)
		}
	case StatusTimedOut:
		return "timed out"
	}
	return h.Status
}

func countsCell(h *Result) string {
	if h.Tests == nil {
		return "no test counts"
	}
	s := fmt.Sprintf("%d passed, %d failed", h.Tests.Passed, h.Tests.Failed)
	if h.Tests.Skipped > 0 {
		s += fmt.Sprintf(", %d skipped", h.Tests.Skipped)
	}
	if h.Tests.Unit == "package" {
		// Plain go test ./... names packages, not tests (docs/report.md):
		// say so, since fixes and breaks beside it count tests.
		s = "packages: " + s
	}
	return s
}

// linesCell is the candidate's size; where the ranking breaks ties on its
// code part alone (the judged run: test files left out), that figure too,
// so a row showing more lines that ranks above a smaller one says why.
func linesCell(h *Result) string {
	s := fmt.Sprintf("~%d changed line(s)", h.ChangedLines)
	if k := h.RankKey; k != nil && k.Lines != h.ChangedLines {
		s += fmt.Sprintf(" (%d of code, which ranks)", k.Lines)
	}
	return s
}

func fixesCell(h *Result) string {
	var parts []string
	if len(h.Fixed) > 0 {
		parts = append(parts, fmt.Sprintf("fixes %d", len(h.Fixed)))
	}
	if len(h.Broken) > 0 {
		parts = append(parts, fmt.Sprintf("breaks %d", len(h.Broken)))
	}
	if len(parts) > 0 && h.Tests != nil && h.Tests.Unit == "package" {
		parts[len(parts)-1] += " test(s)"
	}
	return strings.Join(parts, ", ")
}

// ListShort is paths, at most n of them, then how many more: the text
// writer's (and the judge's sentences') short list.
func ListShort(paths []string, n int) string {
	if len(paths) <= n {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:n], ", ") + fmt.Sprintf(" and %d more", len(paths)-n)
}

// shortPath abbreviates the home directory as ~.
func shortPath(p string) string {
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return p
}

// shellJoin quotes a command for display the way a shell would need it.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			out[i] = a
		} else if strings.IndexFunc(a, isControl) >= 0 {
			out[i] = ansiCQuote(a)
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// isControl: a C0 or C1 control or DEL, what a terminal acts on.
func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == utf8.RuneError
}

// ansiCQuote quotes a as bash's $'...' with every control as \xNN (and
// \n, \t, \e): the header shows a spec's command with an escape
// sequence in it as text, which a terminal shows and does not act on,
// and which a shell still reads as the same argument.
func ansiCQuote(a string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(a); {
		r, size := utf8.DecodeRuneInString(a[i:])
		raw := a[i]
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, raw) // a byte that is no UTF-8 (0x9b is CSI to some terminals)
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == 0x1b:
			b.WriteString(`\e`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
