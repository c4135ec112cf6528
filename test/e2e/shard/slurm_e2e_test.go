//go:build linux

package shard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/test/e2e"
)

// slurmUp skips without a Slurm cluster that answers (CI starts one with
// .ci/slurm-up; a developer can too, as root).
func slurmUp(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("sbatch"); err != nil {
		t.Skip("Slurm is not installed (apt-get install slurm-wlm munge; .ci/slurm-up starts a one-node cluster)")
	}
	if out, err := exec.Command("sinfo", "-h", "-o", "%T").CombinedOutput(); err != nil || !strings.Contains(string(out), "idle") && !strings.Contains(string(out), "mix") && !strings.Contains(string(out), "alloc") {
		t.Skipf("no Slurm cluster answers sinfo (run .ci/slurm-up as root): %v %s", err, out)
	}
}

// The Slurm path for real: `shadow slurm script` makes a job array of 4
// shards, `sbatch --wait` runs it on the cluster, `shadow merge` joins
// the 4 reports and names the same winner and ranking as one unsharded
// run of the same spec.
func TestSlurmJobArrayShardsMergeLikeOneRun(t *testing.T) {
	slurmUp(t)
	e := e2e.NewEnv(t)
	spec := shardFixture(e)
	cmd := []string{"--", "go", "test", "-v", "-count=1", "."}
	out, stderr, code := e.Shadow(append([]string{"--headless", "--json", "-C", e.WS, "--no-record", "-j", "2", spec}, cmd...)...)
	if code != 0 {
		t.Fatalf("unsharded: exit %d\n%s", code, stderr)
	}
	whole := e.Report(out)

	shared := filepath.Join(e.Dir, "shards")
	script, stderr, code := e.Shadow(append([]string{"slurm", "script", "--shards", "4", "--out", shared, "-C", e.WS, "--no-record", "-j", "1", spec}, cmd...)...)
	if code != 0 || !strings.Contains(script, "#SBATCH --array=0-3") {
		t.Fatalf("slurm script: exit %d\n%s\n%s", code, script, stderr)
	}
	path := filepath.Join(e.Dir, "shadow.sbatch")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// sbatch passes its environment to the tasks (--export=ALL): the
	// test binary's way of being shadow, and this test's state dir.
	sb := e.Cmd()
	sb.Path, sb.Args = mustLook(t, "sbatch"), []string{"sbatch", "--wait", path}
	done := make(chan struct{})
	var sbOut []byte
	var sbErr error
	go func() { sbOut, sbErr = sb.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Minute):
		sb.Process.Kill()
		t.Fatal("sbatch --wait did not return in 10 minutes")
	}
	if sbErr != nil {
		logs, _ := filepath.Glob(filepath.Join(shared, "*.log"))
		var b strings.Builder
		for _, l := range logs {
			c, _ := os.ReadFile(l)
			b.WriteString(l + ":\n" + string(c))
		}
		t.Fatalf("sbatch --wait: %v\n%s\n%s", sbErr, sbOut, b.String())
	}
	reports, _ := filepath.Glob(filepath.Join(shared, "shard-*.json"))
	if len(reports) != 4 {
		t.Fatalf("want 4 shard reports in %s, got %v", shared, reports)
	}
	out, stderr, code = e.Shadow(append([]string{"merge", "--json"}, reports...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, out, stderr)
	}
	merged := e.Report(out)
	if got, want := order(merged), order(whole); got != want {
		t.Errorf("Slurm shards merged rank otherwise than one run:\n--- merged\n%s--- unsharded\n%s", got, want)
	}
	if merged.Winner == nil || *merged.Winner != *whole.Winner {
		t.Errorf("winner: merged %v, unsharded %v", merged.Winner, whole.Winner)
	}
	for _, r := range []string{"0", "1", "2", "3"} {
		if !strings.Contains(strings.Join(reports, " "), "shard-"+r+".json") {
			t.Errorf("no report of shard %s", r)
		}
	}
}

func mustLook(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
