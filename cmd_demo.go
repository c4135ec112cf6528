package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/shadow-dev/shadow/demo"
)

// cmdDemo materialises the built-in fixture in a temporary directory and
// runs its spec end to end, as a user would with their own project.
func cmdDemo(args []string) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f runFlags
	f.register(fs)
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return usageErr("usage: shadow demo [--headless] [--json|--events]")
	}
	dir, err := os.MkdirTemp("", "shadow-demo-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "shadow:", err)
		return exitEnv
	}
	defer os.RemoveAll(dir)
	ws, spec, command, err := demo.Materialize(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shadow:", err)
		return exitEnv
	}
	fmt.Fprintf(os.Stderr, "shadow demo: a Go module whose Add subtracts, in %s\n", ws)
	f.opts.Dir, f.opts.Command = ws, command
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	p, code := planRun(ctx, spec, &f, os.Stdin)
	if p == nil {
		return code
	}
	return execute(ctx, p, &f, autoUI, os.Stdout)
}
