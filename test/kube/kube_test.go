//go:build linux

// Package kube is shadow's Kubernetes end-to-end test, a module of its own
// so that the root's go test ./... never builds or needs Kubernetes. It
// runs the shadow binary (built from ../.., or $SHADOW_BIN) against a real
// kube-apiserver, kube-controller-manager and kube-scheduler v1.37.2 over
// etcd (skipped, with the reason, without them: KUBE_BIN_DIR, .ci/kube-up).
package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const image = "shadow-e2e:local"

// shadowBin is the shadow under test: $SHADOW_BIN, else built from the
// repository (../..) into a temporary directory. It returns that
// directory, which the node player puts first on the pods' PATH.
func shadowBin(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if b := os.Getenv("SHADOW_BIN"); b != "" {
		if err := os.Symlink(b, filepath.Join(dir, "shadow")); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	root, _ := filepath.Abs("../..")
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "shadow"), ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build shadow: %v\n%s", err, out)
	}
	return dir
}

// fixture is a Go module in a git repository (the checkout the nodes
// mirror: here at the same path), and a spec of candidates whose ranking
// has every kind of step: a winner, a twin that ties with it, a longer
// equal, partial fixes, one that does not compile.
func fixture(t *testing.T) (ws, spec string) {
	t.Helper()
	dir := t.TempDir()
	ws = filepath.Join(dir, "ws")
	os.MkdirAll(ws, 0o755)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module m\n\ngo 1.21\n")
	write("calc.go", calc(false, false, false, ""))
	write("calc_test.go", `package m

import "testing"

func TestA(t *testing.T) { if A() != 1 { t.Fatal("A") } }
func TestB(t *testing.T) { if B() != 2 { t.Fatal("B") } }
func TestC(t *testing.T) { if C() != 3 { t.Fatal("C") } }
`)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=e2e@shadow", "-c", "user.name=e2e", "commit", "-qm", "fixture"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	edit := func(name, content string) map[string]any {
		return map[string]any{"name": name, "edits": []any{map[string]any{"path": "calc.go", "content": content}}}
	}
	spec = writeSpec(t, dir, "spec.json", map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		edit("all", calc(true, true, true, "")),
		edit("all-long", calc(true, true, true, "// one\n// two\n// three\n")),
		edit("all-twin", calc(true, true, true, "")+"\n"),
		edit("ab", calc(true, true, false, "")),
		edit("a", calc(true, false, false, "")),
		edit("bc", calc(false, true, true, "")),
		edit("nocompile", "package m\n\nfunc A( int { return 1 }\n"),
		edit("bc-long", calc(false, true, true, "// x\n// y\n")),
	}})
	return ws, spec
}

func writeSpec(t *testing.T, dir, name string, v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func calc(a, b, c bool, extra string) string {
	v := func(ok bool, good int) int {
		if ok {
			return good
		}
		return 0
	}
	return fmt.Sprintf("package m\n\n%sfunc A() int { return %d }\nfunc B() int { return %d }\nfunc C() int { return %d }\n", extra, v(a, 1), v(b, 2), v(c, 3))
}

// report is the part of shadow.report/v1 the ranking is compared on.
type report struct {
	Schema     string `json:"schema"`
	Winner     *string
	MergedFrom []int `json:"merged_from"`
	Hypotheses []struct {
		Name     string   `json:"name"`
		Rank     int      `json:"rank"`
		Status   string   `json:"status"`
		Fixed    []string `json:"fixed"`
		Broken   []string `json:"broken"`
		TiesWith []string `json:"ties_with"`
	} `json:"hypotheses"`
}

func parseReport(t *testing.T, out string) *report {
	t.Helper()
	var r report
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Schema != "shadow.report/v1" {
		t.Fatalf("not a report (%v):\n%s", err, out)
	}
	return &r
}

func (r *report) order() string {
	var b strings.Builder
	for _, h := range r.Hypotheses {
		fmt.Fprintf(&b, "%d %s %s fixed=%v broken=%v ties=%v\n", h.Rank, h.Name, h.Status, h.Fixed, h.Broken, h.TiesWith)
	}
	return b.String()
}

// run runs shadow in dir with env added; it returns stdout, stderr and
// the exit code.
func run(t *testing.T, bin, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "shadow"), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// The whole path against a real API server and the real Job controller:
// shadow kube job --apply makes an Indexed Job the controller runs as one
// pod per index (JOB_COMPLETION_INDEX), a failed pod is retried for its
// index alone (backoffLimitPerIndex), and shadow kube collect merges the
// pods' event streams into the same ranking and winner as one unsharded
// run. A pod that exits 2 (shadow refused the spec on the node) fails the
// whole Job through its pod failure policy, collect refuses it, and the
// TTL controller then deletes the Job, the garbage collector the ConfigMap
// it owns. Errors a user acts on: no cluster, a missing namespace, RBAC.
func TestKubeIndexedJobShardsMergeLikeOneRun(t *testing.T) {
	c := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	bin := shadowBin(t)
	ws, spec := fixture(t)
	cmdline := []string{"--", "go", "test", "-v", "-count=1", "."}
	admin := "--kubeconfig=" + c.kubeconfig
	jobArgs := func(extra ...string) []string {
		a := append([]string{"kube", "job", "--apply", "--image", image, "--shards", "4", "-j", "1", "--mirror", ws}, extra...)
		return append(append(a, spec), cmdline...)
	}

	// Errors a user acts on, before the cluster has the namespace.
	home := t.TempDir()
	_, stderr, code := run(t, bin, ws, []string{"HOME=" + home, "KUBECONFIG=", "KUBERNETES_SERVICE_HOST="}, jobArgs()...)
	if code != 3 || !strings.Contains(stderr, "no cluster configured") || !strings.Contains(stderr, "--kubeconfig") {
		t.Errorf("no kubeconfig: exit %d, want 3 and the fix\n%s", code, stderr)
	}
	_, stderr, code = run(t, bin, ws, nil, jobArgs(admin, "--namespace", "shadow-e2e")...)
	if code != 3 || !strings.Contains(stderr, `namespace "shadow-e2e" does not exist`) {
		t.Errorf("missing namespace: exit %d, want 3 and the namespace named\n%s", code, stderr)
	}
	c.namespace(t, ctx, "shadow-e2e")
	_, stderr, code = run(t, bin, ws, nil, jobArgs("--kubeconfig="+c.nobody, "--namespace", "shadow-e2e")...)
	if code != 3 || !strings.Contains(stderr, "forbidden") || !strings.Contains(stderr, "RBAC") {
		t.Errorf("no RBAC: exit %d, want 3 and the fix naming RBAC\n%s", code, stderr)
	}

	// One unsharded run of the same spec, to compare with.
	out, stderr, code := run(t, bin, ws, nil, append([]string{"--headless", "--json", "--no-record", "-j", "2", spec}, cmdline...)...)
	if code != 0 {
		t.Fatalf("unsharded: exit %d\n%s", code, stderr)
	}
	whole := parseReport(t, out)

	c.addNode(t, ctx, "node-1")
	n := startNode(t, ctx, c, "shadow-e2e", bin, image)
	// The first pod of index 1 lands on a node that cannot run it (exit 3:
	// the pod failure policy counts it): the controller makes another pod
	// for index 1 only.
	n.fail = func(p *corev1.Pod, attempt int) (int, bool) {
		return 3, p.Annotations["batch.kubernetes.io/job-completion-index"] == "1" && attempt == 1
	}

	out, stderr, code = run(t, bin, ws, nil, jobArgs(admin, "--namespace", "shadow-e2e", "--name", "shards", "--node-selector", "shadow.dev/mirror=yes")...)
	if code != 0 || strings.TrimSpace(out) != "shards" {
		t.Fatalf("kube job --apply: exit %d, stdout %q\n%s", code, out, stderr)
	}
	jobs := c.client.BatchV1().Jobs("shadow-e2e")
	job, err := jobs.Get(ctx, "shards", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *job.Spec.CompletionMode != batchv1.IndexedCompletion || *job.Spec.Completions != 4 || *job.Spec.Parallelism != 4 || *job.Spec.BackoffLimitPerIndex != 2 {
		t.Errorf("the Job as the API holds it: %+v", job.Spec)
	}
	cm, err := c.client.CoreV1().ConfigMaps("shadow-e2e").Get(ctx, "shards-spec", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cm.OwnerReferences) != 1 || cm.OwnerReferences[0].UID != job.UID {
		t.Errorf("the ConfigMap is not owned by the Job: %+v", cm.OwnerReferences)
	}
	if b, _ := os.ReadFile(spec); cm.Data["spec.json"] != string(b) {
		t.Errorf("the ConfigMap holds %q, not the spec", cm.Data["spec.json"])
	}

	out, stderr, code = run(t, bin, ws, nil, "kube", "collect", "shards", admin, "-n", "shadow-e2e", "--json", "--logs-dir", n.logs)
	if code != 0 {
		t.Fatalf("kube collect: exit %d\n%s\n%s", code, out, stderr)
	}
	merged := parseReport(t, out)
	if got, want := merged.order(), whole.order(); got != want {
		t.Errorf("the Job's shards merged rank otherwise than one run:\n--- merged\n%s--- unsharded\n%s", got, want)
	}
	if merged.Winner == nil || whole.Winner == nil || *merged.Winner != *whole.Winner {
		t.Errorf("winner: merged %v, unsharded %v", merged.Winner, whole.Winner)
	}
	if fmt.Sprint(merged.MergedFrom) != "[0 1 2 3]" {
		t.Errorf("merged_from %v", merged.MergedFrom)
	}
	if !strings.Contains(stderr, "shard 3 of 4 collected") {
		t.Errorf("collect's progress does not name the shards:\n%s", stderr)
	}

	// What the controller did: a pod per index with its index in
	// JOB_COMPLETION_INDEX, two for index 1 (the retry), and the counts.
	job, _ = jobs.Get(ctx, "shards", metav1.GetOptions{})
	if job.Status.Succeeded != 4 || job.Status.Failed != 1 {
		t.Errorf("job status: succeeded %d, failed %d; want 4 and 1", job.Status.Succeeded, job.Status.Failed)
	}
	pods, _ := c.client.CoreV1().Pods("shadow-e2e").List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=shards"})
	perIndex := map[string][]corev1.PodPhase{}
	for _, p := range pods.Items {
		idx := p.Labels["batch.kubernetes.io/job-completion-index"]
		perIndex[idx] = append(perIndex[idx], p.Status.Phase)
		if p.Spec.NodeName != "node-1" {
			t.Errorf("pod %s on node %q", p.Name, p.Spec.NodeName)
		}
		envIndex := ""
		for _, e := range p.Spec.Containers[0].Env {
			if e.Name == "JOB_COMPLETION_INDEX" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
				envIndex = fieldRef(&p, e.ValueFrom.FieldRef.FieldPath)
			}
		}
		if envIndex != idx {
			t.Errorf("pod %s of index %s has JOB_COMPLETION_INDEX %q", p.Name, idx, envIndex)
		}
	}
	for _, idx := range []string{"0", "1", "2", "3"} {
		want := 1
		if idx == "1" {
			want = 2
		}
		if len(perIndex[idx]) != want {
			t.Errorf("index %s: pods %v, want %d", idx, perIndex[idx], want)
		}
	}

	// An index whose pod is gone (deleted, or its TTL ran out): refused,
	// naming it, as shadow merge refuses a missing shard.
	for _, p := range pods.Items {
		if p.Labels["batch.kubernetes.io/job-completion-index"] == "2" {
			zero := int64(0)
			if err := c.client.CoreV1().Pods("shadow-e2e").Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitGone(t, ctx, func() error {
		l, err := c.client.CoreV1().Pods("shadow-e2e").List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-completion-index=2,batch.kubernetes.io/job-name=shards"})
		if err == nil && len(l.Items) > 0 {
			return fmt.Errorf("%d pods left", len(l.Items))
		}
		return err
	})
	out, stderr, code = run(t, bin, ws, nil, "kube", "collect", "shards", admin, "-n", "shadow-e2e", "--logs-dir", n.logs)
	if code != 2 || !strings.Contains(stderr, "shard 2 of 4 has no pod left") {
		t.Errorf("collect with index 2's pod gone: exit %d, want 2 naming it\n%s\n%s", code, out, stderr)
	}

	// A spec the nodes refuse (exit 2: the edit's source is not on the
	// node): the pod failure policy fails the whole Job at once, collect
	// refuses it, and 20 s after it finished the TTL controller deletes it,
	// the garbage collector its ConfigMap.
	bad := writeSpec(t, filepath.Dir(spec), "bad.json", map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "gone", "edits": []any{map[string]any{"path": "calc.go", "file": "/nonexistent/shadow-e2e/calc.go"}}},
	}})
	out, stderr, code = run(t, bin, ws, nil, append([]string{"kube", "job", "--apply", admin, "-n", "shadow-e2e", "--image", image,
		"--shards", "2", "--name", "refused", "--ttl", "20", "--mirror", ws, bad}, cmdline...)...)
	if code != 0 {
		t.Fatalf("kube job --apply (bad spec): exit %d\n%s", code, stderr)
	}
	out, stderr, code = run(t, bin, ws, nil, "kube", "collect", "refused", admin, "-n", "shadow-e2e", "--logs-dir", n.logs)
	if code != 2 || !strings.Contains(stderr, "failed (PodFailurePolicy") || !strings.Contains(stderr, "exit 2") {
		t.Errorf("collect of the refused Job: exit %d, want 2 with the policy's reason and the pod's exit 2\n%s\n%s", code, out, stderr)
	}
	waitGone(t, ctx, func() error {
		if _, err := jobs.Get(ctx, "refused", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("job still there (%v)", err)
		}
		if _, err := c.client.CoreV1().ConfigMaps("shadow-e2e").Get(ctx, "refused-spec", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("configmap still there (%v)", err)
		}
		return nil
	})
}

// waitGone waits up to 2 minutes for check to return nil.
func waitGone(t *testing.T, ctx context.Context, check func() error) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	var err error
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if err = check(); err == nil {
			return
		}
		time.Sleep(time.Second)
	}
	t.Errorf("not gone in 2 minutes: %v", err)
}
