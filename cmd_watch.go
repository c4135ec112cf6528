package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/snap"
	"github.com/shadow-dev/shadow/tui"
)

// cmdWatch is `shadow watch [-C DIR]`: a full-screen view that follows,
// live, the runs other shadow processes record for this workspace (an
// agent's headless runs), switching to each new run as it starts. The runs
// come from snap.Follow; `a` applies a hypothesis of the run shown as
// `shadow apply RUN/HYP` does.
func cmdWatch(args []string) int {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("C", "", "workspace root")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return usageErr("usage: shadow watch [-C DIR]")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return usageErr("current directory: %v", err)
	}
	ws, _, err := run.ResolveWorkspace(*dir, cwd)
	if err != nil {
		return usageErr("%v", err)
	}
	root, err := snap.DefaultRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "shadow:", err)
		return exitEnv
	}
	store := snap.Store{Root: root}
	if err := tui.Watch(tui.Options{Workspace: ws, Store: &store}); err != nil {
		fmt.Fprintln(os.Stderr, "shadow: watch:", err)
		return exitEnv
	}
	return 0
}
