//go:build linux

package shard

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
	"go.yaml.in/yaml/v3"
)

// ghWorkflow is the part of a GitHub Actions workflow the example uses.
type ghWorkflow struct {
	Jobs map[string]struct {
		Needs    any `yaml:"needs"`
		Strategy struct {
			Matrix map[string][]any `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Name string         `yaml:"name"`
			Uses string         `yaml:"uses"`
			Run  string         `yaml:"run"`
			With map[string]any `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// The example workflow of docs/ci/github-actions.yml, played here as the
// runner would: each matrix job's run steps (shadow installed by this test
// instead of `go install`), its artifact handed to the merge job, whose
// run step merges them. The merged report must rank as one unsharded run.
func TestGitHubActionsExampleWorkflowShardsAndMerges(t *testing.T) {
	e := e2e.NewEnv(t)
	raw, err := os.ReadFile("docs/ci/github-actions.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf ghWorkflow
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		t.Fatalf("docs/ci/github-actions.yml is not YAML: %v", err)
	}
	shardJob, ok1 := wf.Jobs["shard"]
	mergeJob, ok2 := wf.Jobs["merge"]
	if !ok1 || !ok2 || fmt.Sprint(mergeJob.Needs) != "shard" {
		t.Fatalf("want jobs shard and merge (needs: shard), got %+v", wf.Jobs)
	}
	// --ref hypotheses and the shards' commit check need the history:
	// the checkout must not be shallow.
	for _, st := range shardJob.Steps {
		if strings.HasPrefix(st.Uses, "actions/checkout@") && fmt.Sprint(st.With["fetch-depth"]) != "0" {
			t.Errorf("the shard job checks out with fetch-depth %v, want 0 (the whole history)", st.With["fetch-depth"])
		}
	}
	shards := shardJob.Strategy.Matrix["shard"]
	if len(shards) != 4 {
		t.Fatalf("matrix.shard = %v, want 4 indexes", shards)
	}

	// The checkout: the shard fixture with its spec as shadow.json.
	specPath := shardFixture(e)
	spec, _ := os.ReadFile(specPath)
	e.Write("shadow.json", string(spec), 0o644)
	out, stderr, code := e.Shadow("--headless", "--json", "-C", e.WS, "--no-record", filepath.Join(e.WS, "shadow.json"), "--", "go", "test", "./...")
	if code != 0 {
		t.Fatalf("unsharded: exit %d\n%s", code, stderr)
	}
	whole := e.Report(out)

	bin := filepath.Join(e.Dir, "bin")
	os.MkdirAll(bin, 0o755)
	exe, _ := os.Executable()
	os.WriteFile(filepath.Join(bin, "shadow"), []byte("#!/bin/sh\nexec "+exe+" \"$@\"\n"), 0o755)
	runStep := func(dir, script string) ([]byte, error) {
		c := e.Cmd()
		c.Path, c.Args, c.Dir = "/bin/bash", []string{"bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script}, dir
		c.Env = append(c.Env, "PATH="+bin+":"+os.Getenv("PATH"), "GITHUB_PATH="+filepath.Join(e.Dir, "github_path"),
			"GITHUB_STEP_SUMMARY="+filepath.Join(e.Dir, "step_summary"))
		return c.CombinedOutput()
	}
	merged := filepath.Join(e.Dir, "merge-job")
	os.MkdirAll(merged, 0o755)
	for _, s := range shards {
		for _, st := range shardJob.Steps {
			// The runner's own setup (the install, the sysctl that gives
			// overlay mode on a hosted runner) is not this machine's to do.
			if st.Run == "" || strings.Contains(st.Run, "go install") || strings.Contains(st.Run, "sysctl") {
				continue
			}
			script := strings.ReplaceAll(st.Run, "${{ matrix.shard }}", fmt.Sprint(s))
			if out, err := runStep(e.WS, script); err != nil {
				t.Fatalf("shard %v, step %q: %v\n%s", s, st.Name, err, out)
			}
		}
		// upload-artifact, then download-artifact with merge-multiple:
		// the report lands in the merge job's directory.
		name := fmt.Sprintf("shard-%v.json", s)
		b, err := os.ReadFile(filepath.Join(e.WS, name))
		if err != nil {
			t.Fatalf("shard %v left no %s: %v", s, name, err)
		}
		os.WriteFile(filepath.Join(merged, name), b, 0o644)
		os.Remove(filepath.Join(e.WS, name))
	}
	var ran []string
	for _, st := range mergeJob.Steps {
		if st.Run == "" || strings.Contains(st.Run, "go install") {
			continue
		}
		out, err := runStep(merged, st.Run)
		if err != nil {
			t.Fatalf("merge step %q: %v\n%s", st.Name, err, out)
		}
		ran = append(ran, st.Name)
	}
	if len(ran) == 0 {
		t.Fatal("the merge job has no run step")
	}
	b, err := os.ReadFile(filepath.Join(merged, "shadow-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := e.Report(string(b))
	// The job summary holds the ranked report, the winner named.
	if sum, err := os.ReadFile(filepath.Join(e.Dir, "step_summary")); err != nil || whole.Winner == nil || !strings.Contains(string(sum), *whole.Winner) || !strings.Contains(string(sum), "```text") {
		t.Errorf("the job summary ($GITHUB_STEP_SUMMARY) does not hold the ranked report: %v\n%s", err, sum)
	}
	if order(got) != order(whole) || got.Winner == nil || *got.Winner != *whole.Winner {
		t.Errorf("the workflow's merged report ranks otherwise than one run:\n--- merged\n%s--- unsharded\n%s", order(got), order(whole))
	}
	if idx := append([]int(nil), got.MergedFrom...); !sort.IntsAreSorted(idx) || len(idx) != 4 {
		t.Errorf("merged_from = %v", got.MergedFrom)
	}
}
