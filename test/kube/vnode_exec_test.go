//go:build linux

package kube

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/remotecommand"
)

// pods/exec through the API server to the virtual node (the exec
// subresource upgraded to a stream, proxied to the node's kubelet API),
// and a pod's deletion as a kubelet carries it out: SIGTERM to the
// container, its end reported, the pod removed from the API.
func TestKubeVirtualNodeExecAndDelete(t *testing.T) {
	c := startCluster(t, "nodelifecycle")
	c.startScheduler(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const ns = "vexec"
	c.namespace(t, ctx, ns)
	p := startVirtualNode(t, ctx, c, "vnode-1", nil, t.TempDir(), image)
	t.Cleanup(func() {
		if t.Failed() {
			dumpPods(t, c, ns)
		}
	})
	pods := c.client.CoreV1().Pods(ns)
	grace := int64(10)
	_, err := pods.Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "sleeper"},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{Name: "main", Image: image, WorkingDir: "/",
				Env:     []corev1.EnvVar{{Name: "GREETING", Value: "from the pod"}},
				Command: []string{"/bin/sh", "-c", "trap 'echo terminated; exit 143' TERM; echo started; while :; do sleep 0.1; done"}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitGone(t, ctx, func() error {
		pod, err := pods.Get(ctx, "sleeper", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if pod.Status.Phase != corev1.PodRunning {
			return fmt.Errorf("pod %s on %q", pod.Status.Phase, pod.Spec.NodeName)
		}
		return nil
	})

	cfg, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	req := c.client.CoreV1().RESTClient().Post().Namespace(ns).Resource("pods").Name("sleeper").SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: "main", Command: []string{"/bin/sh", "-c", "echo \"$GREETING\"; echo oops >&2; exit 3"}, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	ex, err := remotecommand.NewSPDYExecutor(cfg, "POST", req.URL())
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr})
	if stdout.String() != "from the pod\n" || stderr.String() != "oops\n" || err == nil || !strings.Contains(err.Error(), "exit code 3") {
		t.Errorf("exec through the API server: stdout %q, stderr %q, err %v; want the container's environment, both streams and exit code 3", stdout.String(), stderr.String(), err)
	}

	// The log through the API server, while the container runs.
	b, err := pods.GetLogs("sleeper", &corev1.PodLogOptions{Container: "main"}).DoRaw(ctx)
	if err != nil || string(b) != "started\n" {
		t.Errorf("pods/log of the running pod: %q, %v", b, err)
	}

	if err := pods.Delete(ctx, "sleeper", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ctx, func() error {
		if _, err := pods.Get(ctx, "sleeper", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("pod still there (%v)", err)
		}
		return nil
	})
	p.mu.Lock()
	_, left := p.pods[podKey(ns, "sleeper")]
	p.mu.Unlock()
	if left {
		t.Errorf("the node still holds the deleted pod")
	}
	if b, _ := os.ReadFile(filepath.Join(p.dir, "pods", ns, "sleeper", "logs", "main.log")); string(b) != "started\nterminated\n" {
		t.Errorf("the deleted pod's container was not ended with SIGTERM: its log %q", b)
	}
}
