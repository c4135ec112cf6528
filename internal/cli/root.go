// Package cli is shadow's command tree (spf13/cobra): flags and wiring
// over the run service (internal/run), the records (snap) and the MCP
// server. Commands return errors; main maps them to exit codes.
package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shadow-dev/shadow/internal/suggest"
)

const usageText = `shadow: test candidate fixes at once, each in a sealed shadow of your
workspace, without touching the working tree.

start here:
  shadow demo                               the built-in example, end to end
  shadow init                               a starter spec (shadow.json) for this project
  shadow --baseline --patch fix.diff -- go test ./...   one hypothesis per diff, no spec

usage:
  shadow [flags] [SPEC] -- COMMAND [ARG...] TUI when a person is at a terminal (stdin
                                            and stdout; not CI=true or TERM=dumb), closed
                                            with the run unless a key was pressed; text
                                            report otherwise
  shadow tui [flags] SPEC -- COMMAND...     always the TUI
  shadow --headless [--json|--events] [flags] SPEC -- COMMAND...
  shadow watch [-C DIR]                     TUI following the runs other shadow processes make here
  shadow log [-C DIR] [-n N] [--json]       the recorded runs of this workspace
  shadow show RUN[/HYP] [-C DIR] [--json|--patch]  one recorded run or hypothesis: result, diff, output
  shadow apply RUN/HYP [-C DIR] [--dry-run] [--force]  write a recorded hypothesis into the
                                            checkout (one that did not pass: --force)
  shadow init [FILE] [--from-patches DIR|--from-worktrees]  a starter spec with its JSON Schema
  shadow merge REPORT... [--json]           join the reports of a run's shards (--shard K/N)
                                            (--apply --spec SPEC: and write the winner, recorded as a run)
  shadow slurm script [--shards N] [--out DIR] SPEC -- COMMAND...  a Slurm job array of the shards
  shadow kube job [--apply] --image IMAGE --shards N SPEC -- COMMAND...  the shards as a
                                            Kubernetes Indexed Job
  shadow kube collect JOB [--json]          wait for that Job and merge its pods' reports
  shadow demo [--headless|--json|--events]  built-in example, run end to end
  shadow probe [--json]                     which sandbox mode this machine gives, and why
  shadow gc                                 restore interrupted in-place runs, remove leftovers, prune records
  shadow mcp [-C DIR]                       MCP server on stdio for coding agents
  shadow completion bash|zsh|fish           shell completion
  shadow help [COMMAND], shadow COMMAND -h  help for every command (shadow help spec: the spec)
  shadow version, shadow --version

SPEC is a JSON file, or - for stdin (shadow help spec); shadow init writes a
starter. Hypotheses can also come without one, and mix with one:
  --patch FILE|DIR  one per unified diff (a directory: its *.diff, *.patch),
                    named after the file (repeatable)
  --ref REF         one per branch or commit: its change since the merge base
                    with HEAD, over the checkout (repeatable)
  --worktrees       one per other worktree of this repository (git worktree
                    add): its commits and uncommitted work, named after it
A spec's "command" is used when no COMMAND is given. A SPEC named like a
command is written ./log. Flags a team always passes can live in
.shadow.toml or shadow.json at the workspace root (docs/cli.md); a flag
given on the command line wins.

output:
  --headless        never the TUI: text report on stdout
  --json            one JSON report (shadow.report/v1) on stdout
  --events          NDJSON events (shadow.event/v1) on stdout as they happen
  -q, --quiet       no progress lines or notices on stderr: the result only
  --color WHEN      colour the text report: auto (a terminal, no NO_COLOR), always, never

run:
  -C, --dir DIR     workspace root (default: git top-level of the current dir, else it);
                    the command runs in the current directory's counterpart
  -j, --jobs N      hypotheses at once (default: number of CPUs)
  --timeout DUR     per hypothesis (default 10m)
  --baseline        add a hypothesis "baseline" with no edits unless the spec has one
  --apply           write the winner into the checkout
  --with-tests      with --apply: write the winner's proposed tests too
  --confirm N       rerun the baseline and the leading candidate N more times; a
                    candidate that fails a rerun cannot win (at most 3 are tried)
  --freeze          run on a copy of the source files taken at the start
  --keep            keep what each command wrote in the run's record
  --no-record       do not record the run in the state directory
  --no-warm         neither stack the warm layer (the git-ignored build outputs an
                    earlier baseline made) under the hypotheses nor feed it
  --max-output SIZE    cap of each hypothesis's stored output: head, every error
                    section and tail, with markers for what was dropped (default 16M)
  --max-edit-size SIZE largest content of one edit; its "file" must be a regular file (default 64M)

judge:
  --allow-test-edits  a candidate that changes the tests or runs fewer may win
  --allow-suspicious  a candidate whose code sniffs or patches the test runner may win
  --no-cross        do not run candidates' proposed tests on each other
  --tests-from DIR|PATCH  tests written before the candidates were seen (a directory
                    laid over the workspace, or a diff): the judge's, on every hypothesis

sandbox:
  --mode MODE       auto|overlay|copy|inplace (default auto; shadow probe says why)
  --require-seal    copy and in-place modes: refuse (exit 3) where Landlock cannot seal
  --net NET         private (default in overlay mode: own loopback, HTTP(S) out through
                    a proxy), isolated (loopback only) or host
  --host-port N     a host localhost TCP port reachable at each hypothesis's 127.0.0.1:N
  --tmp TMP         private (default in overlay mode: a tmpfs per hypothesis) or shared
                    (the host's /tmp: a file a command needs there must use this)
  --writable PATH   overlay mode: a directory outside the workspace the command may write
  --memory SIZE     each hypothesis's memory cap (needs a memory cgroup)
  --upper disk|ram  overlay mode: where each hypothesis's writes go; --upper-size SIZE caps ram
  --copy-skip GLOB  copy mode: leave a heavy directory out of each copy (repeatable)

elsewhere:
  --remote NODE[,NODE...]  run the hypotheses on Linux nodes over ssh ($SHADOW_SSH_COMMAND)
  --remote-dir DIR  where the nodes keep the mirror (default: the workspace's own path)
  --shard K/N       run one slice of the hypotheses (the baselines in every slice);
                    "/N" takes K from $JOB_COMPLETION_INDEX, $SLURM_ARRAY_TASK_ID...
                    or --shard-index-env VAR; join the reports with shadow merge

ranking: passed (exit 0 and no failing test) before passed but disqualified
(it changed a test file, the runner's config or a common file, or ran fewer
of the baseline's tests) before failed with counts, without counts, then
timed out, error, cancelled; within each, fewer failing, more passing tests,
fewer changed lines of code. The winner is the first passed, not
disqualified one.

exit codes: 0 a hypothesis passed, 1 none passed, 2 usage or spec error
(nothing ran), 3 the environment cannot do what was asked, 130 interrupted
(Ctrl-C, also in the TUI, or SIGTERM: no winner is named).
`

// Execute runs the command line args (without the program name) and
// returns what it ended with: nil, an *ExitError, a *run.Error or another
// error (main maps them to exit codes and explains them).
func Execute(args []string, s Streams, version string) error {
	root := NewRoot(s, version)
	root.SetArgs(args)
	// A flag error where the command was not put after --: most likely
	// the command's own flags, read as shadow's.
	noDash := !slices.Contains(args, "--")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		var ive *pflag.InvalidValueError
		if errors.As(err, &ive) {
			// A value the flag's Parse refused: name the flag as it
			// was meant, then why (`--mode "fast": want auto, ...`).
			name := "--" + ive.GetFlag().Name
			if sh := ive.GetFlag().Shorthand; sh != "" {
				name = "-" + sh
			}
			err = fmt.Errorf("%s %q: %v", name, ive.GetValue(), errors.Unwrap(err))
		} else if near := nearFlag(c, err); near != "" {
			// A typo of one of this command's flags (--headles).
			err = fmt.Errorf("%v: did you mean %s?", err, near)
		} else if noDash && (c == root || c.Name() == "tui") {
			return usage("%v (put the command after --: shadow SPEC -- COMMAND...)", err)
		}
		if c != root {
			return usage("%s: %v", c.Name(), err)
		}
		return usage("%v", err)
	})
	c, err := root.ExecuteC()
	if err != nil && isCobraUsage(err) {
		err = usage("%v", err)
	}
	var ae *ArgError
	if errors.As(err, &ae) && ae.Command == "" && c != nil && c != root {
		ae.Command = c.Name()
	}
	writeJSONRefusal(args, err, s.Out) // jsonerr.go: --json gets a JSON answer
	return err
}

// nearFlag is the flag of c that an "unknown flag: --NAME" error's NAME
// was most likely meant to be ("--headless" for --headles), or "".
func nearFlag(c *cobra.Command, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return ""
	}
	name, _, _ = strings.Cut(name, "=")
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if n := suggest.Closest(name, names); n != "" {
		return "--" + n
	}
	return ""
}

// isCobraUsage recognises cobra's own refusals (an unknown command for
// help, a missing completion shell, wrong argument counts of commands
// that use cobra's validators), which are usage errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires ", "invalid argument", "unknown flag", "unknown shorthand flag"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// NewRoot is the command tree: the root command runs a spec, the others
// are subcommands.
func NewRoot(s Streams, version string) *cobra.Command {
	var f runFlags
	var showVersion bool
	root := &cobra.Command{
		Use:   "shadow [flags] SPEC -- COMMAND [ARG...]",
		Short: "test candidate fixes in parallel overlay shadows of your workspace",
		// SPEC -- COMMAND: any words; the run checks them.
		Args:          cobra.ArbitraryArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if showVersion {
				fmt.Fprintln(s.Out, versionLine(version))
				return nil
			}
			return runCommand(cmd, args, &f, autoUI, s, version)
		},
	}
	root.DisableFlagsInUseLine = true
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	f.register(root.Flags())
	root.Flags().BoolVar(&showVersion, "version", false, "print shadow's version")
	defaultHelp := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, a []string) {
		if c == root {
			fmt.Fprint(c.OutOrStdout(), usageText)
			return
		}
		defaultHelp(c, a)
	})
	sub := []*cobra.Command{
		tuiCommand(s, version), watchCommand(s), logCommand(s), showCommand(s), applyCommand(s), initCommand(s),
		demoCommand(s, version), probeCommand(s, version), gcCommand(s), mcpCommand(s, version), mergeCommand(s), slurmCommand(s), kubeCommand(s),
		&cobra.Command{
			Use: "version", Short: "print shadow's version", Args: cobra.NoArgs,
			Run: func(*cobra.Command, []string) { fmt.Fprintln(s.Out, versionLine(version)) },
		},
	}
	for _, c := range sub {
		c.DisableFlagsInUseLine = true
	}
	root.AddCommand(sub...)
	root.SetHelpCommand(helpCommand(root)) // version.go: an unknown topic exits 2
	root.AddCommand(manCommand(root, version))
	wireCompletion(root) // complete.go: specs, RUN/HYP, patches, refs
	return root
}

// noArgs refuses positional arguments, naming the command, as a usage
// error.
func noArgs(what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usage("%s", what)
		}
		return nil
	}
}
