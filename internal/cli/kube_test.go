package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// kube job prints the Job with the run flags passed on to each shard, and
// none of its own (--apply, --namespace...) nor the output flags, which
// the Job sets.
func TestKubeJobPrintsTheJob(t *testing.T) {
	ws := t.TempDir()
	spec := filepath.Join(ws, "spec.json")
	os.WriteFile(spec, []byte(`{"hypotheses":[{"name":"baseline"},{"name":"a","edits":[{"path":"x","content":"1"}]}]}`), 0o644)
	out, errb, err := execCLI("", "kube", "job", "--image", "img:1", "--shards", "3", "-C", ws, "-j", "2", "--mode", "copy",
		"--namespace", "ci", "--node-selector", "a=b", "--mirror", "/m", spec, "--", "go", "test", "./...")
	if err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	docs := strings.Split(out, "\n---\n")
	var job batchv1.Job
	if err := yaml.Unmarshal([]byte(docs[len(docs)-1]), &job); err != nil {
		t.Fatal(err)
	}
	argv := strings.Join(job.Spec.Template.Spec.Containers[0].Command[4:], " ")
	real, _ := filepath.EvalSymlinks(ws)
	want := "shadow --headless --events --shard-index-env=JOB_COMPLETION_INDEX --shard=/3 -C " + real + " --no-record --jobs=2 --mode=copy - -- go test ./..."
	if argv != want {
		t.Errorf("pod command\n %s\nwant\n %s", argv, want)
	}
	if job.Namespace != "ci" || job.Spec.Template.Spec.NodeSelector["a"] != "b" || job.Spec.Template.Spec.Volumes[0].HostPath.Path != "/m" {
		t.Errorf("namespace %q, selector %v, volumes %+v", job.Namespace, job.Spec.Template.Spec.NodeSelector, job.Spec.Template.Spec.Volumes)
	}
	if !strings.HasPrefix(job.Name, "shadow-") {
		t.Errorf("name %q", job.Name)
	}
}

func TestKubeJobRefusals(t *testing.T) {
	ws := t.TempDir()
	good := filepath.Join(ws, "spec.json")
	os.WriteFile(good, []byte(`{"hypotheses":[{"name":"a","edits":[{"path":"x","content":"1"}]}]}`), 0o644)
	sub := filepath.Join(ws, "specs")
	os.MkdirAll(sub, 0o755)
	rel := filepath.Join(sub, "rel.json")
	os.WriteFile(rel, []byte(`{"hypotheses":[{"name":"a","edits":[{"path":"x","file":"a.go"}]}]}`), 0o644)
	bad := filepath.Join(ws, "bad.json")
	os.WriteFile(bad, []byte(`{"hypotheses":[{"nom":"a"}]}`), 0o644)
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{good, "--", "true"}, 2, "--image"},
		{[]string{"--image", "i", "--shards", "0", good, "--", "true"}, 2, "--shards 0"},
		{[]string{"--image", "i", "--name", "Bad_Name", good, "--", "true"}, 2, "--name"},
		{[]string{"--image", "i", "--json", good, "--", "true"}, 2, "unknown flag: --json"},
		{[]string{"--image", "i", bad, "--", "true"}, 2, "nom"},
		{[]string{"--image", "i", good}, 2, "no command"},
		{[]string{"--image", "i", "-C", ws, rel, "--", "true"}, 2, `reads "a.go" relative to its directory`},
		{[]string{"--image", "i", "--apply", "-C", ws, "--mirror", "/m", good, "--", "true"}, 3, "no cluster configured"},
		{[]string{"--image", "i", "-C", ws, good, "--", "true"}, 2, "no mirror: the checkout has no origin remote"},
		{[]string{"--image", "i", "-C", ws, "--mirror", "/m", "--mirror-pvc", "c", good, "--", "true"}, 2, "give one"},
		{[]string{"--image", "i", "-C", ws, "--mirror", "/m", "--toleration", "a:Never", good, "--", "true"}, 2, "--toleration"},
		{[]string{"--image", "i", "-C", ws, "--mirror", "/m", "--pod-memory", "much", good, "--", "true"}, 2, "--pod-memory"},
	} {
		_, errb, err := execCLI("", append([]string{"kube", "job"}, tc.args...)...)
		if code(err) != tc.code || !strings.Contains(err.Error()+errb, tc.want) {
			t.Errorf("%v: exit %d (%v), want %d and %q", tc.args, code(err), err, tc.code, tc.want)
		}
	}
	if _, _, err := execCLI("", "kube", "collect"); code(err) != 2 {
		t.Errorf("collect without a Job: %v", err)
	}
}

func TestKubeJobSaysUncommittedChangesStayHere(t *testing.T) {
	ws := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "i"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Skipf("git: %v %s", err, out)
		}
	}
	os.WriteFile(filepath.Join(ws, "a.go"), []byte("package a\n"), 0o644)
	exec.Command("git", "-C", ws, "add", "a.go").Run()
	spec := filepath.Join(t.TempDir(), "spec.json")
	os.WriteFile(spec, []byte(`{"hypotheses":[{"name":"a"}]}`), 0o644)
	_, errb, err := execCLI("", "kube", "job", "--image", "i", "-C", ws, "--mirror-git", "https://git.example/p.git", spec, "--", "true")
	if err != nil || !strings.Contains(errb, "uncommitted changes") {
		t.Errorf("%v: stderr %q", err, errb)
	}
}

// Without a mirror flag the pods fetch the checkout's commit from its
// origin remote (an init container: no hostPath, which Pod Security's
// baseline level refuses), and kube job says so; the pod flags land in
// the pod.
func TestKubeJobMirrorsFromOrigin(t *testing.T) {
	ws := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "i"},
		{"remote", "add", "origin", "https://git.example/team/proj.git"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Skipf("git: %v %s", err, out)
		}
	}
	head, _ := exec.Command("git", "-C", ws, "rev-parse", "HEAD").Output()
	spec := filepath.Join(t.TempDir(), "spec.json")
	os.WriteFile(spec, []byte(`{"hypotheses":[{"name":"a"}]}`), 0o644)
	out, errb, err := execCLI("", "kube", "job", "--image", "i", "-C", ws, "--service-account", "runner", "--image-pull-secret", "regcred",
		"--toleration", "dedicated=ci:NoSchedule", "--cpus", "3", "--pod-memory", "5Gi", spec, "--", "true")
	if err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	if !strings.Contains(errb, "the pods fetch "+strings.TrimSpace(string(head))+" from https://git.example/team/proj.git (origin)") {
		t.Errorf("no notice of the mirror's source: %q", errb)
	}
	docs := strings.Split(out, "\n---\n")
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[len(docs)-1]), &job); err != nil {
		t.Fatal(err)
	}
	ps := job.Spec.Template.Spec
	if len(ps.InitContainers) != 1 || !strings.Contains(strings.Join(ps.InitContainers[0].Command, " "), "https://git.example/team/proj.git "+strings.TrimSpace(string(head))) {
		t.Errorf("init containers %+v", ps.InitContainers)
	}
	if ps.ServiceAccountName != "runner" || ps.ImagePullSecrets[0].Name != "regcred" || ps.Tolerations[0].Value != "ci" {
		t.Errorf("pod spec %+v", ps)
	}
	c := ps.Containers[0]
	if c.Resources.Limits.Memory().String() != "5Gi" || c.Resources.Requests.Cpu().String() != "3" || !strings.Contains(strings.Join(c.Command, " "), "--jobs=3") {
		t.Errorf("resources %+v, command %v", c.Resources, c.Command)
	}
}
