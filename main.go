// Command shadow tests several candidate fixes at once, each in an overlay
// shadow of the workspace, without touching the working tree. See
// README.md and DESIGN.md for the contract; this file only wires packages.
package main

import (
	"fmt"
	"os"

	"github.com/shadow-dev/shadow/internal/clone"
	"github.com/shadow-dev/shadow/internal/remote"
	"github.com/shadow-dev/shadow/overlay"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes (DESIGN.md §1).
const (
	exitWinner = 0
	exitNone   = 1
	exitUsage  = 2
	exitEnv    = 3
)

func main() {
	// The sandbox init is this binary re-executed inside the namespaces: it
	// must be dispatched before any flag parsing or output.
	overlay.MaybeInit()
	// So is copy mode's helper, which runs each command in its copy.
	clone.MaybeHelper()
	// Descriptors inherited from the caller must reach no command (issue 10).
	overlay.CloseInheritedFDs()
	// The node side of --remote, started over ssh by another shadow.
	remote.MaybeNode()
	os.Exit(dispatch(os.Args[1:]))
}

func dispatch(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "probe":
			return cmdProbe(args[1:])
		case "demo":
			return cmdDemo(args[1:])
		case "version", "--version":
			fmt.Println("shadow", version)
			return 0
		case "help", "-h", "--help":
			fmt.Print(usage)
			return 0
		case "tui":
			return cmdRun(args[1:], forceTUI)
		case "watch":
			return cmdWatch(args[1:])
		case "log":
			return cmdLog(args[1:])
		case "show":
			return cmdShow(args[1:])
		case "apply":
			return cmdApply(args[1:])
		case "gc":
			return cmdGC(args[1:])
		case "mcp":
			return cmdMCP(args[1:])
		}
	}
	return cmdRun(args, autoUI)
}

const usage = `shadow: test candidate fixes in parallel overlay shadows of your workspace,
without touching the working tree.

usage:
  shadow [flags] SPEC -- COMMAND [ARG...]   TUI on a terminal, text report otherwise
  shadow tui [flags] SPEC -- COMMAND...     always the TUI
  shadow --headless [--json|--events] [flags] SPEC -- COMMAND...
  shadow watch [-C DIR]                     TUI following the runs other shadow processes make here
  shadow log [-C DIR] [--json]              the recorded runs of this workspace
  shadow show RUN[/HYP] [--json]            one recorded run or hypothesis: result, diff, output
  shadow apply RUN/HYP [-C DIR]             write a recorded hypothesis into the checkout
  shadow demo [--headless]                  built-in example, run end to end
  shadow probe [--json]                     which sandbox mode this machine gives, and why
  shadow gc                                 restore interrupted in-place runs, remove leftovers, prune records
  shadow mcp                                MCP server on stdio for coding agents
  shadow version

SPEC is a JSON file, or - for stdin (see README.md). A spec's "command" is
used when no COMMAND is given.

flags:
  -C DIR            workspace root (default: git top-level of the current dir, else it)
  -j N              hypotheses at once (default: number of CPUs)
  --timeout DUR     per hypothesis (default 10m)
  --mode MODE       auto|overlay|copy|inplace (default auto)
  --copy-skip GLOB  copy mode: leave a heavy directory out of each copy (repeatable)
  --apply           write the winner into the checkout
  --baseline        add a hypothesis "baseline" with no edits unless the spec has one
  --net host|isolated, --tmp shared|private
  --keep            keep what each command wrote in the run's record
  --no-record       do not record the run in the state directory
  --max-output SIZE    cap of each hypothesis's stored output: head, every error
                    section and tail, with markers for what was dropped (default 16M)
  --max-edit-size SIZE largest content of one edit; its "file" must be a regular file (default 64M)
  --confirm N       rerun the baseline and the leading candidate N more times; a
                    candidate that fails a rerun cannot win (at most 3 are tried)
  --allow-test-edits  a candidate that changes the tests or runs fewer may win
  --remote NODE[,NODE...]  run the hypotheses on Linux nodes over ssh ($SHADOW_SSH_COMMAND)
  --remote-dir DIR  where the nodes keep the mirror (default: the workspace's own path)
  --headless        never the TUI: text report on stdout
  --json            one JSON report (shadow.report/v1) on stdout
  --events          NDJSON events (shadow.event/v1) on stdout as they happen

ranking: passed (exit 0 and no failing test) before passed but disqualified
(it changed a test file, the runner's config or a common file, or ran fewer
of the baseline's tests) before failed with counts, without counts, then
timed out, error, cancelled; within each, fewer failing, more passing tests,
fewer changed lines. The winner is the first passed, not disqualified one.

exit codes: 0 a hypothesis passed, 1 none passed, 2 usage or spec error
(nothing ran), 3 the environment cannot do what was asked.
`
