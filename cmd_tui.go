package main

import (
	"context"
	"fmt"
	"os"
)

// runTUI shows a run in the full-screen TUI. Until the TUI lands it says so
// and prints the text report.
func runTUI(ctx context.Context, p *plan, f *runFlags) int {
	fmt.Fprintln(os.Stderr, "shadow: the TUI is not in this build yet; showing the text report")
	f.headless = true
	return execute(p, f, autoUI, os.Stdout)
}
