package cli

import (
	"fmt"
	"path"
	"strings"

	"github.com/spf13/pflag"

	"github.com/shadow-dev/shadow/internal/hypsrc"
	"github.com/shadow-dev/shadow/internal/run"
)

// runFlags are the flags of a run (docs/cli.md): the run service's
// options, and how the result is shown. They are defined here and only
// here (the root command, tui and demo share them): a new run option is a
// field of run.Options and one line in register.
type runFlags struct {
	opts         run.Options
	headless     bool
	json, events bool
	src          hypsrc.Sources // --patch, --ref, --worktrees
	quiet        bool           // --quiet: no progress lines or notices
	color        colorMode      // --color auto|always|never
}

func (f *runFlags) register(fs *pflag.FlagSet) {
	o := &f.opts
	fs.SortFlags = false
	fs.StringVarP(&o.Dir, "dir", "C", "", "workspace root (default: the git top-level of the current directory, else it)")
	fs.IntVarP(&o.Jobs, "jobs", "j", 0, "hypotheses at once (default: the number of CPUs)")
	fs.Var(run.TimeoutValue{D: &o.Timeout}, "timeout", "per-hypothesis timeout (default 10m)")
	fs.Var(&o.Mode, "mode", "sandbox: auto, overlay, copy or inplace (default auto)")
	fs.BoolVar(&o.RequireSeal, "require-seal", false, "copy and in-place modes: refuse to run (exit 3) where Landlock cannot seal the command")
	fs.Var((*globList)(&o.CopySkip), "copy-skip", "copy mode: leave a heavy directory out of each copy (repeatable)")
	fs.BoolVar(&o.Apply, "apply", false, "write the winner into the checkout")
	fs.BoolVar(&o.Baseline, "baseline", false, "add a hypothesis \"baseline\" with no edits unless the spec has one")
	fs.Var(&o.Net, "net", "the command's network: private (a network namespace per hypothesis, HTTP(S) out through shadow's proxy), isolated (loopback only) or host (default private in overlay mode, host in the others)")
	fs.IntSliceVar(&o.HostPorts, "host-port", nil, "overlay mode: a host localhost TCP port every hypothesis reaches at its own 127.0.0.1 (repeatable)")
	fs.Var(run.SizeValue{N: &o.Memory}, "memory", "each hypothesis's memory cap, e.g. 2G (needs a memory cgroup)")
	fs.Var(&o.Tmp, "tmp", "the command's /tmp, /var/tmp: private (a fresh tmpfs per hypothesis) or shared (the host's) (default private in overlay mode)")
	fs.StringArrayVar(&o.Writable, "writable", nil, "overlay mode: a directory outside the workspace the command may write, overlaid per hypothesis and thrown away (repeatable)")
	fs.Var(&o.Upper, "upper", "overlay mode's upper dirs: disk, or ram (a tmpfs per hypothesis) (default disk)")
	fs.Var(run.SizeValue{N: &o.UpperSize}, "upper-size", "cap of each hypothesis's RAM upper (default a quarter of RAM)")
	fs.BoolVar(&o.Keep, "keep", false, "keep what each command wrote in the run's record")
	fs.BoolVar(&o.Freeze, "freeze", false, "run on a copy of the source files taken at the start")
	fs.BoolVar(&o.NoRecord, "no-record", false, "do not record the run in the state directory")
	fs.BoolVar(&o.NoWarm, "no-warm", false, "neither stack nor feed the workspace's warm layer of build outputs nor its home layer of caches, and never run the baseline alone first")
	fs.Var(run.SizeValue{N: &o.MaxOutput}, "max-output", "cap of each hypothesis's stored output (default 16M)")
	fs.Var(run.SizeValue{N: &o.MaxEditSize}, "max-edit-size", "largest content of one edit (default 64M)")
	fs.IntVar(&o.Confirm, "confirm", 0, "rerun the baseline and the leading candidate N more times before naming a winner")
	fs.BoolVar(&o.AllowTestEdits, "allow-test-edits", false, "a candidate that changes tests may win")
	fs.BoolVar(&o.AllowSuspicious, "allow-suspicious", false, "a candidate whose code sniffs or patches the test runner may win")
	fs.BoolVar(&o.NoCross, "no-cross", false, "do not run candidates' proposed tests on each other")
	fs.StringVar(&o.TestsFrom, "tests-from", "", "tests written before the candidates were seen: a directory laid over the workspace, or a unified diff; the judge's, run on the baseline and every candidate, never applied")
	fs.BoolVar(&o.WithTests, "with-tests", false, "with --apply: write the winner's proposed tests too, not only its code")
	fs.Func("remote", "run the hypotheses on these ssh nodes: NODE[,NODE...]", func(v string) error {
		o.Remote = append(o.Remote, run.ParseRemote(v)...)
		return nil
	})
	fs.StringVar(&o.Shard, "shard", "", "run one slice K/N of the hypotheses (K from 0; \"/N\": K from the environment), the baselines in every slice; `shadow merge` joins the reports")
	fs.StringVar(&o.ShardIndexEnv, "shard-index-env", "", "with --shard /N: the environment variable holding K (default: JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, ...)")
	fs.StringVar(&o.RemoteDir, "remote-dir", "", "where the nodes keep the mirror, when not at the workspace's path")
	fs.StringArrayVar(&f.src.Patches, "patch", nil, "a hypothesis from a unified diff file, named after it; a directory: each *.diff and *.patch in it (repeatable)")
	fs.StringArrayVar(&f.src.Refs, "ref", nil, "a hypothesis from a branch or commit: its change since the merge base with HEAD (repeatable)")
	fs.BoolVar(&f.src.Worktrees, "worktrees", false, "a hypothesis from every other worktree of this repository: its commits and uncommitted work")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress lines or notices on stderr: the result only")
	fs.Var(&f.color, "color", "colour the text report: auto (on a terminal, unless NO_COLOR is set), always or never")
	fs.BoolVar(&f.headless, "headless", false, "never the TUI: text report on stdout")
	fs.BoolVar(&f.json, "json", false, "one JSON report (shadow.report/v1) on stdout")
	fs.BoolVar(&f.events, "events", false, "NDJSON events (shadow.event/v1) on stdout as they happen")
}

// globList is a repeatable flag (--copy-skip GLOB ...).
type globList []string

func (g *globList) String() string { return strings.Join(*g, ",") }
func (g *globList) Type() string   { return "GLOB" }
func (g *globList) Set(s string) error {
	if s == "" || strings.HasPrefix(s, "/") || strings.Contains(s, "..") {
		return fmt.Errorf("want a workspace-relative glob such as node_modules or build/cache, not %q", s)
	}
	if _, err := path.Match(s, ""); err != nil {
		return fmt.Errorf("%q: %v", s, err)
	}
	*g = append(*g, s)
	return nil
}
