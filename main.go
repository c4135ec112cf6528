// Command shadow tests several candidate fixes at once, each in an overlay
// shadow of the workspace, without touching the working tree. See
// README.md and docs/architecture.md; this file only dispatches the
// hidden entry points and exits with cli.ExitCode of what the command ended with.
package main

import (
	"os"

	"github.com/shadow-dev/shadow/internal/cli"
	"github.com/shadow-dev/shadow/internal/quietterm"
	_ "github.com/shadow-dev/shadow/internal/sandbox" // registers the node side (its sandbox is internal/sandbox.OpenNode)
	"github.com/shadow-dev/shadow/internal/sandbox/entry"
	_ "github.com/shadow-dev/shadow/internal/sandbox/reaper" // registers the process helper
	"github.com/shadow-dev/shadow/overlay"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	// TERM was hidden while packages were initialised (see quietterm): put
	// it back before any entry point runs or starts a command.
	quietterm.Restore()
	// The hidden entry points are one table (internal/sandbox/entry). The
	// per-hypothesis ones, the sandbox init inside the namespaces and the
	// process helper of copy and in-place modes, took this process over
	// in their packages' init already, before the heavy packages'; the
	// others are dispatched here, before any flag parsing or output.
	// Descriptors inherited from the caller must reach no command: only
	// 0-2 do (docs/modes.md, "overlay": what the seal holds).
	overlay.CloseInheritedFDs()
	// The node side of --remote, started over ssh by another shadow.
	entry.Dispatch()
	os.Exit(cli.Main(os.Args[1:], version))
}
