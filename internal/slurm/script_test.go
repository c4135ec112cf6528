package slurm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The script runs its array task's shard, keeps the report only when the
// shard ran (exit 0 or 1) and fails otherwise, so only that index is
// retried. Run with bash, a fake shadow standing in, as a Slurm task.
func TestScriptRunsItsTasksShard(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "shadow")
	// Prints its arguments as the report and exits with $RC.
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"$@\"\nexit ${RC:-0}\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out dir")
	os.Mkdir(out, 0o755)
	script := Script(Job{Shadow: fake, Spec: "/s/spec.json", Cwd: dir, Out: out, Shards: 3, CPUs: 2,
		RunArgs: []string{"--jobs=2"}, Command: []string{"go", "test", "./..."}})
	for _, want := range []string{"#SBATCH --array=0-2\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --chdir=" + dir + "\n"} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	if strings.Contains(script, "--partition") || strings.Contains(script, "--time") {
		t.Errorf("no partition or time limit asked, and the script sets one:\n%s", script)
	}
	sh := filepath.Join(dir, "job.sh")
	os.WriteFile(sh, []byte(script), 0o755)
	run := func(task, rc string) error {
		c := exec.Command("bash", sh)
		c.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID="+task, "RC="+rc)
		return c.Run()
	}
	if err := run("1", "1"); err != nil {
		t.Fatalf("a shard that ran with no winner (exit 1) failed its task: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(out, "shard-1.json"))
	if err != nil {
		t.Fatalf("the shard's report was not kept: %v", err)
	}
	if got := string(b); !strings.Contains(got, "--shard=1/3 --jobs=2 /s/spec.json -- go test ./...") {
		t.Errorf("the task ran %q, want its own shard, 1/3, and the run flags", got)
	}
	if err := run("2", "3"); err == nil {
		t.Error("a shard that did not run (exit 3) passed its task: Slurm would not retry it")
	}
	if _, err := os.Stat(filepath.Join(out, "shard-2.json")); err == nil {
		t.Error("a shard that did not run left a report for the merge")
	}
	if _, err := os.Stat(filepath.Join(out, "shard-2.json.part")); err == nil {
		t.Error("a shard that did not run left its partial report")
	}
}
