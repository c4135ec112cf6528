package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shadow-dev/shadow/internal/slurm"
)

// slurmCommand is `shadow slurm script`: a batch script that runs a spec's
// shards as a Slurm job array, one `shadow --shard $SLURM_ARRAY_TASK_ID/N`
// per array task, each writing its JSON report into a shared directory
// for `shadow merge`.
func slurmCommand(s Streams) *cobra.Command {
	parent := &cobra.Command{
		Use:   "slurm script [flags] SPEC -- COMMAND...",
		Short: "a Slurm batch script that runs a spec's shards as a job array",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return usage("slurm: say what you want: shadow slurm script [flags] SPEC -- COMMAND...")
		},
	}
	var f runFlags
	var shards, cpus int
	var out, partition, limit string
	script := &cobra.Command{
		Use:   "script [--shards N] [--out DIR] [--partition P] [--time T] [--cpus N] [run flags] SPEC -- COMMAND...",
		Short: "print a Slurm batch script running SPEC's shards as a job array",
		Long: `script prints (on stdout) a Slurm batch script whose job array runs one shard of
SPEC per task: shadow --headless --json --shard $SLURM_ARRAY_TASK_ID/N, with the run
flags given here, in the current directory, on a node that sees this checkout
and this shadow binary at the same paths (a shared filesystem, or a mirror kept
at the same path). Each task writes DIR/shard-K.json (renamed into place only
when the shard ran: exit 0 or 1). DIR is made now, since Slurm opens each task's
log there before it starts. Then:

  sbatch --wait script.sh && shadow merge DIR/shard-*.json

A task that did not run its shard (exit 2, 3 or 130) fails, so Slurm's
requeue or a resubmission of that index (sbatch --array=K) retries only it.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pos, command := args, []string(nil)
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				pos, command = args[:dash], args[dash:]
			}
			if len(pos) != 1 {
				return usage("slurm script: give one SPEC file, then -- COMMAND...")
			}
			if pos[0] == "-" {
				return usage("slurm script: SPEC must be a file the nodes can read, not stdin")
			}
			if shards < 1 {
				return usage("slurm script: --shards %d: want at least 1", shards)
			}
			if len(f.opts.Remote) > 0 {
				return usage("slurm script: --remote runs hypotheses over ssh; a Slurm task runs its shard where Slurm puts it: drop --remote")
			}
			cwd, err := os.Getwd()
			if err != nil {
				return envErr("slurm script: %v", err)
			}
			spec, err := filepath.Abs(pos[0])
			if err != nil {
				return usage("slurm script: %v", err)
			}
			if _, err := os.Stat(spec); err != nil {
				return specErr("slurm script: cannot read the spec: %v", err)
			}
			self, err := os.Executable()
			if err != nil {
				return envErr("slurm script: where is this shadow binary? %v", err)
			}
			outDir, err := filepath.Abs(out)
			if err != nil {
				return usage("slurm script: --out %q: %v", out, err)
			}
			if err := os.MkdirAll(outDir, 0o755); err != nil {
				return envErr("slurm script: --out %s: %v", outDir, err)
			}
			runArgs := forwardedRunFlags(cmd.Flags())
			if cpus > 0 && !cmd.Flags().Changed("jobs") {
				runArgs = append(runArgs, fmt.Sprintf("--jobs=%d", cpus))
			}
			fmt.Fprint(s.Out, slurm.Script(slurm.Job{
				Shadow: self, Spec: spec, Cwd: cwd, Out: outDir, Shards: shards,
				Partition: partition, Limit: limit, CPUs: cpus, RunArgs: runArgs, Command: command,
			}))
			return nil
		},
	}
	f.register(script.Flags())
	script.Flags().IntVar(&shards, "shards", 4, "how many shards (array tasks)")
	script.Flags().StringVar(&out, "out", "shadow-shards", "directory (shared with the nodes) for the shards' reports and logs")
	script.Flags().StringVar(&partition, "partition", "", "Slurm partition (default: the cluster's)")
	script.Flags().StringVar(&limit, "time", "", "Slurm time limit of each task, e.g. 30:00")
	script.Flags().IntVar(&cpus, "cpus", 0, "CPUs per task (--cpus-per-task), also the shard's -j unless given")
	parent.AddCommand(script)
	return parent
}

// forwardedRunFlags are the run flags given to `slurm script`, as the
// arguments each task passes on; the output and shard flags are the
// script's own.
func forwardedRunFlags(fs *pflag.FlagSet) []string {
	own := map[string]bool{"headless": true, "json": true, "events": true, "shard": true, "shard-index-env": true,
		"shards": true, "out": true, "partition": true, "time": true, "cpus": true}
	var out []string
	fs.Visit(func(fl *pflag.Flag) {
		if own[fl.Name] {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+fl.Name+"="+v)
			}
			return
		}
		out = append(out, "--"+fl.Name+"="+fl.Value.String())
	})
	return out
}
