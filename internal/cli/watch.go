package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/tui"
)

// watchCommand is `shadow watch [-C DIR]`: a full-screen view that
// follows, live, the runs other shadow processes record for this workspace
// (an agent's headless runs), switching to each new run as it starts. The
// runs come from snap.Follow; `a` applies a hypothesis of the run shown as
// `shadow apply RUN/HYP` does.
func watchCommand(s Streams) *cobra.Command {
	var dir string
	c := &cobra.Command{
		Use:   "watch [-C DIR]",
		Short: "TUI following the runs other shadow processes make in this workspace",
		Args:  noArgs("usage: shadow watch [-C DIR]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !s.terminal(s.Out) {
				return errNoTerminal("watch")
			}
			cwd, err := os.Getwd()
			if err != nil {
				return specErr("current directory: %v", err)
			}
			ws, _, err := run.ResolveWorkspace(dir, cwd)
			if err != nil {
				return specErr("%v", err)
			}
			store, err := defaultStore()
			if err != nil {
				return err
			}
			if err := tui.Watch(tui.Options{Workspace: ws, Store: &store}); err != nil {
				return envErr("watch: %v", err)
			}
			return nil
		},
	}
	c.Flags().StringVarP(&dir, "dir", "C", "", "workspace root")
	return c
}
