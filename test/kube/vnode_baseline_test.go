//go:build linux

package kube

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

// baselineOnTheVirtualNode: in a namespace that enforces Pod Security's
// baseline level (pod-security.kubernetes.io/enforce, the API server's
// PodSecurity admission plugin, on by default), the pod of the Job kube
// job prints by default (the git mirror: an init container fetching the
// commit into an emptyDir) is admitted and the hostPath mirror's refused,
// each created with dryRun=All (admission enforces on pods; a Job's
// template only warns). Then the git-mirror Job runs there through the
// virtual node (the init container fetches from a repository, the shards
// run in what it fetched) and merges to the unsharded run's ranking.
func baselineOnTheVirtualNode(t *testing.T, ctx context.Context, c *cluster, bin, ws, spec string, whole *report) {
	t.Helper()
	const ns = "vbaseline"
	if _, err := c.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns,
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The repository the pods fetch from (not the checkout's own path:
	// the node rewrites that path, the emptyDir's mount, in the commands).
	remote := filepath.Join(t.TempDir(), "remote.git")
	if out, err := exec.Command("git", "clone", "-q", "--bare", ws, remote).CombinedOutput(); err != nil {
		t.Fatalf("git clone --bare: %v\n%s", err, out)
	}
	admin := "--kubeconfig=" + c.kubeconfig
	cmdline := []string{"--", "go", "test", "-v", "-count=1", "."}
	dryPod := func(mirror ...string) error {
		t.Helper()
		args := append(append([]string{"kube", "job", "-n", ns, "--image", image, "--shards", "2", "-j", "1", "--name", "dry"}, mirror...), spec)
		out, stderr, code := run(t, bin, ws, nil, append(args, cmdline...)...)
		if code != 0 {
			t.Fatalf("kube job %v: exit %d\n%s", mirror, code, stderr)
		}
		var job *batchv1.Job
		for _, doc := range strings.Split(out, "\n---\n") {
			if obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil); err == nil {
				if j, ok := obj.(*batchv1.Job); ok {
					job = j
				}
			}
		}
		if job == nil {
			t.Fatalf("kube job %v printed no Job:\n%s", mirror, out)
		}
		if _, err := c.client.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			t.Errorf("the Job (%v) refused in a baseline namespace: %v", mirror, err)
		}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "dry-0", Namespace: ns, Labels: job.Spec.Template.Labels}, Spec: job.Spec.Template.Spec}
		_, err := c.client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	}
	if err := dryPod("--mirror-git", remote); err != nil {
		t.Errorf("the git mirror's pod is refused by Pod Security baseline: %v", err)
	}
	if err := dryPod("--mirror", ws); err == nil || !strings.Contains(err.Error(), `violates PodSecurity "baseline`) || !strings.Contains(err.Error(), "hostPath") {
		t.Errorf("the hostPath mirror's pod under baseline: %v; want refused for its hostPath volume", err)
	}

	out, stderr, code := run(t, bin, ws, nil, append([]string{"kube", "job", "--apply", admin, "-n", ns, "--image", image, "--shards", "2", "-j", "1",
		"--name", "vgit", "--mirror-git", remote, spec}, cmdline...)...)
	if code != 0 {
		t.Fatalf("kube job --apply --mirror-git: exit %d\n%s", code, stderr)
	}
	out, stderr, code = runFor(t, 5*time.Minute, bin, ws, "kube", "collect", "vgit", admin, "-n", ns, "--json")
	if code != 0 {
		dumpPods(t, c, ns)
		t.Fatalf("kube collect of the git-mirror Job: exit %d\n%s\n%s", code, out, stderr)
	}
	if got, want := parseReport(t, out).order(), whole.order(); got != want {
		t.Errorf("the git-mirror Job's shards merged rank otherwise than one run:\n--- merged\n%s--- unsharded\n%s", got, want)
	}
	pods, _ := c.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=vgit"})
	for _, p := range pods.Items {
		if len(p.Status.InitContainerStatuses) != 1 || p.Status.InitContainerStatuses[0].State.Terminated == nil || p.Status.InitContainerStatuses[0].State.Terminated.ExitCode != 0 {
			t.Errorf("pod %s: the mirror's init container %+v, want it run and ended 0", p.Name, p.Status.InitContainerStatuses)
		}
	}
}
