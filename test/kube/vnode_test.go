//go:build linux

package kube

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The Job through a node that speaks the kubelet protocol: kube-scheduler
// places the pods the Job controller makes on the virtual node (no binding
// by the test), the node runs each as shadow's shard at the checkout's
// path and reports its status and its Lease, and kube collect, without
// --logs-dir, follows the running pods' logs (pods/log?follow=true) and
// reads the finished ones' through the API server, which reaches the node's
// kubelet API over TLS it verifies. The merged winner and ranking are one
// unsharded run's. A Job whose node selector matches no node stays
// pending, and collect says why in the scheduler's words. Then Pod
// Security's baseline level (baselineOnTheVirtualNode).
func TestKubeVirtualNodeRunsTheJob(t *testing.T) {
	// The node lifecycle controller: it takes the not-ready taint the API
	// server puts on a new node (TaintNodesByCondition) off once the node
	// is Ready, and judges the node by its Lease (a node whose Lease is
	// not renewed goes Unknown and is tainted again).
	c := startCluster(t, "nodelifecycle")
	c.startScheduler(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	bin := shadowBin(t)
	ws, spec := fixture(t)
	cmdline := []string{"--", "go", "test", "-v", "-count=1", "."}
	admin := "--kubeconfig=" + c.kubeconfig
	const ns = "vnode"
	c.namespace(t, ctx, ns)

	out, stderr, code := run(t, bin, ws, nil, append([]string{"--headless", "--json", "--no-record", "-j", "2", spec}, cmdline...)...)
	if code != 0 {
		t.Fatalf("unsharded: exit %d\n%s", code, stderr)
	}
	whole := parseReport(t, out)

	p := startVirtualNode(t, ctx, c, "vnode-1", map[string]string{"shadow.dev/mirror": "yes"}, bin, image)

	t.Cleanup(func() {
		if t.Failed() {
			dumpPods(t, c, ns)
		}
	})

	// The node as a kubelet keeps it: Ready, and its Lease renewed.
	waitGone(t, ctx, func() error {
		n, err := c.client.CoreV1().Nodes().Get(ctx, "vnode-1", metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("virtual node not Ready: %+v", n.Status.Conditions)
	})
	waitGone(t, ctx, func() error {
		l, err := c.client.CoordinationV1().Leases("kube-node-lease").Get(ctx, "vnode-1", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != "vnode-1" || l.Spec.RenewTime == nil || time.Since(l.Spec.RenewTime.Time) > time.Minute {
			return fmt.Errorf("lease not held and renewed by the node: %+v", l.Spec)
		}
		return nil
	})

	out, stderr, code = run(t, bin, ws, nil, "kube", "job", "--apply", admin, "-n", ns, "--image", image, "--shards", "3", "-j", "1",
		"--name", "vshards", "--mirror", ws, "--node-selector", "shadow.dev/mirror=yes", spec, "--", "go", "test", "-v", "-count=1", ".")
	if code != 0 || strings.TrimSpace(out) != "vshards" {
		t.Fatalf("kube job --apply: exit %d, stdout %q\n%s", code, out, stderr)
	}
	out, stderr, code = runFor(t, 5*time.Minute, bin, ws, "kube", "collect", "vshards", admin, "-n", ns, "--json")
	if code != 0 {
		t.Fatalf("kube collect (logs through the API server): exit %d\n%s\n%s", code, out, stderr)
	}
	t.Logf("kube collect (stderr):\n%s", stderr)
	merged := parseReport(t, out)
	if got, want := merged.order(), whole.order(); got != want {
		t.Errorf("the shards run on the virtual node merged rank otherwise than one run:\n--- merged\n%s--- unsharded\n%s", got, want)
	}
	if merged.Winner == nil || whole.Winner == nil || *merged.Winner != *whole.Winner {
		t.Errorf("winner: merged %v, unsharded %v", merged.Winner, whole.Winner)
	}
	if fmt.Sprint(merged.MergedFrom) != "[0 1 2]" {
		t.Errorf("merged_from %v", merged.MergedFrom)
	}
	// The follower's lines ("shard K: NAME STATUS") come only from a log
	// streamed with follow=true while the pod ran.
	if !regexp.MustCompile(`(?m)^shard [0-2]: \S+ \S+$`).MatchString(stderr) {
		t.Errorf("collect printed no hypothesis from a followed log:\n%s", stderr)
	}
	pods, err := c.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=vshards"})
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	follows := len(p.follows)
	p.mu.Unlock()
	if follows == 0 {
		t.Errorf("no pod's log was followed through the API server (follow=true requests on the node: none)")
	}
	if len(pods.Items) != 3 {
		t.Errorf("%d pods, want one per index", len(pods.Items))
	}
	for _, pod := range pods.Items {
		scheduled := false
		for _, cond := range pod.Status.Conditions {
			scheduled = scheduled || cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionTrue
		}
		if pod.Spec.NodeName != "vnode-1" || !scheduled || pod.Status.Phase != corev1.PodSucceeded {
			t.Errorf("pod %s: node %q, scheduled %v, phase %s", pod.Name, pod.Spec.NodeName, scheduled, pod.Status.Phase)
		}
	}

	// A node selector no node matches: the Job's pod stays pending, and
	// collect says why (the scheduler's PodScheduled condition).
	out, stderr, code = run(t, bin, ws, nil, "kube", "job", "--apply", admin, "-n", ns, "--image", image, "--shards", "1",
		"--name", "nowhere", "--mirror", ws, "--node-selector", "shadow.dev/mirror=elsewhere", spec, "--", "go", "test", ".")
	if code != 0 {
		t.Fatalf("kube job --apply (no node matches): exit %d\n%s", code, stderr)
	}
	said := collectUntil(t, bin, ws, 2*time.Minute, "is not scheduled", "kube", "collect", "nowhere", admin, "-n", ns)
	for _, want := range []string{"shard 0 (pod nowhere-0-", "is not scheduled: Unschedulable: 0/1 nodes are available", "didn't match Pod's node affinity/selector", "--node-selector"} {
		if !strings.Contains(said, want) {
			t.Errorf("collect of a Job no node takes does not say %q:\n%s", want, said)
		}
	}
	pending, _ := c.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=nowhere"})
	for _, pod := range pending.Items {
		if pod.Spec.NodeName != "" || pod.Status.Phase != corev1.PodPending {
			t.Errorf("pod %s of the unplaceable Job: node %q, phase %s", pod.Name, pod.Spec.NodeName, pod.Status.Phase)
		}
	}

	baselineOnTheVirtualNode(t, ctx, c, bin, ws, spec, whole)
}

// collectUntil runs shadow until a line of its stderr holds want (or the
// timeout), then interrupts it; it returns the stderr read.
func collectUntil(t *testing.T, bin, dir string, timeout time.Duration, want string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "shadow"), args...)
	cmd.Dir = dir
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	found, read := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pipe)
		closed := false
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
			if !closed && strings.Contains(sc.Text(), want) {
				closed = true
				close(found)
			}
		}
	}()
	select {
	case <-found:
	case <-time.After(timeout):
		t.Errorf("shadow %s: no %q in %s", strings.Join(args, " "), want, timeout)
	}
	cmd.Process.Signal(os.Interrupt)
	<-read // EOF: shadow has exited and closed its stderr
	cmd.Wait()
	return b.String()
}

// runFor is run with a deadline: shadow is killed past it (a collect that
// would wait for ever), the test failing with what it printed.
func runFor(t *testing.T, timeout time.Duration, bin, dir string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "shadow"), args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("shadow %s: not done in %s\n%s\n%s", strings.Join(args, " "), timeout, out.String(), errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// dumpPods logs the namespace's pods and events (for a failure).
func dumpPods(t *testing.T, c *cluster, ns string) {
	ctx := context.Background()
	pods, err := c.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Logf("pods: %v", err)
		return
	}
	for _, p := range pods.Items {
		t.Logf("pod %s: node %q phase %s conditions %+v containers %+v", p.Name, p.Spec.NodeName, p.Status.Phase, p.Status.Conditions, p.Status.ContainerStatuses)
	}
	evs, _ := c.client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	for _, e := range evs.Items {
		t.Logf("event %s %s: %s %s", e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message)
	}
}
