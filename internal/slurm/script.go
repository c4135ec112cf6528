// Package slurm is `shadow slurm script`'s batch script: a spec's shards
// (internal/shard) as a Slurm job array, each task writing its JSON report
// into a shared directory for `shadow merge`, as internal/kube makes them a
// Kubernetes Indexed Job. The command tree only reads the flags.
package slurm

import (
	"fmt"
	"strings"

	"github.com/shadow-dev/shadow/internal/records"
)

// Job is one Slurm job array running a spec's shards.
type Job struct {
	// Shadow, Spec, Cwd and Out are absolute paths every node sees alike
	// (a shared filesystem, or a mirror kept at the same path): the
	// binary, the spec, the checkout the tasks run in, the directory of
	// the shards' reports and logs.
	Shadow, Spec, Cwd, Out string
	// Shards is the array's size; CPUs, when set, each task's
	// --cpus-per-task.
	Shards, CPUs int
	// Partition and Limit (--time) are Slurm's, "" for the cluster's default.
	Partition, Limit string
	// RunArgs are the run flags each task passes on; Command the command
	// after --.
	RunArgs, Command []string
}

// Script is the batch script: one `shadow --shard $SLURM_ARRAY_TASK_ID/N`
// per array task, its JSON report renamed into Out only when the shard ran
// (exit 0 or 1), so a task that did not (2, 3, 130) fails and Slurm's
// requeue, or a resubmission of its index, retries only it (sbatch(1):
// --array, %a in --output).
func Script(j Job) string {
	var b strings.Builder
	q := func(s string) string { return records.Quote([]string{s}) }
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# shadow: %d shards of %s as a Slurm job array (shadow slurm script).\n", j.Shards, j.Spec)
	fmt.Fprintf(&b, "# Submit and merge: sbatch --wait THIS_FILE && %s merge %s/shard-*.json\n", q(j.Shadow), q(j.Out))
	fmt.Fprintf(&b, "#SBATCH --job-name=shadow\n")
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", j.Shards-1)
	fmt.Fprintf(&b, "#SBATCH --output=%s/shard-%%a.log\n", j.Out)
	fmt.Fprintf(&b, "#SBATCH --chdir=%s\n", j.Cwd)
	if j.Partition != "" {
		fmt.Fprintf(&b, "#SBATCH --partition=%s\n", j.Partition)
	}
	if j.Limit != "" {
		fmt.Fprintf(&b, "#SBATCH --time=%s\n", j.Limit)
	}
	if j.CPUs > 0 {
		fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", j.CPUs)
	}
	argv := append([]string{j.Shadow, "--headless", "--json", "--shard=$K/" + fmt.Sprint(j.Shards)}, j.RunArgs...)
	argv = append(append(argv, j.Spec, "--"), j.Command...)
	quoted := records.Quote(argv)
	// $K stays a variable: the quoting above single-quoted it.
	quoted = strings.Replace(quoted, q("--shard=$K/"+fmt.Sprint(j.Shards)), `"--shard=$K/`+fmt.Sprint(j.Shards)+`"`, 1)
	fmt.Fprintf(&b, "set -u\n")
	fmt.Fprintf(&b, "K=${SLURM_ARRAY_TASK_ID:?not a Slurm array task}\n")
	fmt.Fprintf(&b, "report=%s/shard-$K.json\n", q(j.Out))
	fmt.Fprintf(&b, "rc=0\n")
	fmt.Fprintf(&b, "%s > \"$report.part\" || rc=$?\n", quoted)
	fmt.Fprintf(&b, "# 0: a winner in this shard, 1: none; either way the shard ran and its\n")
	fmt.Fprintf(&b, "# report counts. 2, 3 or 130: it did not; the task fails and is retried.\n")
	fmt.Fprintf(&b, "if [ \"$rc\" -le 1 ]; then mv \"$report.part\" \"$report\"; exit 0; fi\n")
	fmt.Fprintf(&b, "rm -f \"$report.part\"\n")
	fmt.Fprintf(&b, "exit \"$rc\"\n")
	return b.String()
}
