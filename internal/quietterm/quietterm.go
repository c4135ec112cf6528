// Package quietterm keeps bubbletea's package initialisation from querying
// the terminal. bubbletea v1's init (tea_init.go) calls
// lipgloss.HasDarkBackground, which on a terminal stdout writes OSC 11
// ("ESC ]11;?") and a cursor position report request ("ESC [6n") and waits
// up to 5 s for answers: every shadow command, `shadow --headless --json`
// included, would start its output with those queries. termenv sends no
// status report request when TERM is dumb (termenv_unix.go,
// termStatusReport), so this package's init hides TERM behind "dumb" and
// main puts it back (Restore) before anything else runs. The TUI asks the
// terminal itself, with its own renderer, when it starts (tui/term.go).
//
// It imports only syscall, so it is initialised before os and therefore
// before bubbletea (Go initialises, among the packages whose imports are
// ready, the first by import path; bubbletea needs os).
package quietterm

import "syscall"

var (
	saved    string
	hadTERM  bool
	restored bool
)

func init() {
	saved, hadTERM = syscall.Getenv("TERM")
	if hadTERM {
		_ = syscall.Setenv("TERM", "dumb")
	}
}

// Restore puts TERM back as the process was given it. It is idempotent.
func Restore() {
	if restored {
		return
	}
	restored = true
	if hadTERM {
		_ = syscall.Setenv("TERM", saved)
	}
}
