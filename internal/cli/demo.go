package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/shadow-dev/shadow/demo"
)

// demoCommand materialises the built-in fixture in a temporary directory
// and runs its spec end to end, as a user would with their own project.
func demoCommand(s Streams, version string) *cobra.Command {
	var f runFlags
	c := &cobra.Command{
		Use:   "demo [--headless|--json|--events]",
		Short: "run the built-in example end to end (a Go module whose Add subtracts)",
		Args:  noArgs("usage: shadow demo [--headless] [--json|--events]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, done, err := demoDir()
			if err != nil {
				return envErr("%v", err)
			}
			defer done()
			ws, spec, command, err := demo.Materialize(dir)
			if err != nil {
				return envErr("%v", err)
			}
			fmt.Fprintf(s.Err, "shadow demo: a Go module whose Add subtracts, in %s\n", ws)
			f.opts.Dir, f.opts.Command = ws, command
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			p, err := planRun(ctx, spec, &f, s, version)
			if err != nil {
				return err
			}
			return execute(ctx, p, &f, demoUI, s)
		},
	}
	f.register(c.Flags())
	return c
}
