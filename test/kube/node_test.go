//go:build linux

package kube

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// node plays a kubelet for the pods the Job controller makes, there being
// none: it binds each to itself (the binding subresource, as a scheduler
// does), "mounts" its volumes (the ConfigMap's files written out, an
// emptyDir a fresh directory, the hostPath mirror used where it is: the
// checkout is at the same path here), runs the container's command as a
// process on this machine with shadow on its PATH as the image would have
// it, writes its output (stdout and stderr interleaved, as a container
// log) to logs/POD.log, and reports the pod's status back through the
// API: Running, then Succeeded or Failed with the container's exit code.
// A pod deleted while it runs is stopped with SIGTERM and removed, as a
// kubelet does. What it does not do: pull or run an image, enforce the
// mounts (the command sees the whole machine), serve logs.
type node struct {
	c      *cluster
	name   string
	ns     string
	shadow string // directory holding the shadow binary, first on PATH
	image  string // the image the pods must name
	dir    string
	logs   string
	// fail, when it returns true, ends that pod with the exit code given
	// without running it (a node that cannot run shadow).
	fail func(p *corev1.Pod, attempt int) (int, bool)

	mu       sync.Mutex
	handled  map[string]bool
	running  map[string]*exec.Cmd
	attempts map[string]int // per completion index
	errs     []string
	wg       sync.WaitGroup
}

func startNode(t *testing.T, ctx context.Context, c *cluster, ns, shadowDir, image string) *node {
	n := &node{c: c, name: "node-1", ns: ns, shadow: shadowDir, image: image, dir: t.TempDir(),
		handled: map[string]bool{}, running: map[string]*exec.Cmd{}, attempts: map[string]int{}}
	n.logs = filepath.Join(n.dir, "logs")
	os.MkdirAll(n.logs, 0o755)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); n.loop(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		n.mu.Lock()
		for _, cmd := range n.running {
			cmd.Process.Kill()
		}
		n.mu.Unlock()
		n.wg.Wait()
		for _, e := range n.errs {
			t.Errorf("node: %s", e)
		}
	})
	return n
}

func (n *node) errorf(format string, a ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.errs = append(n.errs, fmt.Sprintf(format, a...))
}

func (n *node) loop(ctx context.Context) {
	for ctx.Err() == nil {
		pods, err := n.c.client.CoreV1().Pods(n.ns).List(ctx, metav1.ListOptions{})
		if err == nil {
			for i := range pods.Items {
				p := pods.Items[i]
				n.mu.Lock()
				seen := n.handled[p.Name]
				cmd := n.running[p.Name]
				n.mu.Unlock()
				switch {
				case p.DeletionTimestamp != nil && cmd != nil:
					cmd.Process.Signal(syscall.SIGTERM) // play goes on: reports, then removes it
				case p.DeletionTimestamp != nil && !seen:
					n.mu.Lock()
					n.handled[p.Name] = true
					n.mu.Unlock()
					n.terminate(ctx, &p, 137, "never started")
				case !seen && p.Status.Phase == corev1.PodPending:
					n.mu.Lock()
					n.handled[p.Name] = true
					n.mu.Unlock()
					n.wg.Add(1)
					go func() { defer n.wg.Done(); n.play(ctx, p) }()
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// play runs one pod from binding to its end.
func (n *node) play(ctx context.Context, p corev1.Pod) {
	pods := n.c.client.CoreV1().Pods(n.ns)
	if p.Spec.NodeName == "" {
		err := pods.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: n.ns},
			Target: corev1.ObjectReference{Kind: "Node", Name: n.name}}, metav1.CreateOptions{})
		if err != nil {
			n.errorf("bind %s: %v", p.Name, err)
			return
		}
	}
	if len(p.Spec.Containers) != 1 {
		n.errorf("pod %s has %d containers, want shadow's one", p.Name, len(p.Spec.Containers))
		return
	}
	ctr := p.Spec.Containers[0]
	if ctr.Image != n.image {
		n.errorf("pod %s runs image %q, want %q", p.Name, ctr.Image, n.image)
	}
	started := metav1.Now()
	n.setStatus(ctx, p.Name, func(st *corev1.PodStatus) {
		st.Phase, st.StartTime = corev1.PodRunning, &started
		st.ContainerStatuses = []corev1.ContainerStatus{{Name: ctr.Name, Image: ctr.Image, ImageID: "local", ContainerID: "node-player://" + p.Name,
			Ready: true, Started: ptr(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}}
	})

	index := p.Annotations["batch.kubernetes.io/job-completion-index"]
	n.mu.Lock()
	n.attempts[index]++
	attempt := n.attempts[index]
	n.mu.Unlock()
	if n.fail != nil {
		if code, ok := n.fail(&p, attempt); ok {
			os.WriteFile(filepath.Join(n.logs, p.Name+".log"), []byte("node: cannot run this pod here\n"), 0o644)
			n.terminate(ctx, &p, code, "node: cannot run this pod here")
			return
		}
	}

	// The volumes: where each mount's content is on this machine.
	podDir := filepath.Join(n.dir, "pods", p.Name)
	mounts := map[string]string{}
	for _, m := range ctr.VolumeMounts {
		var vol *corev1.Volume
		for i := range p.Spec.Volumes {
			if p.Spec.Volumes[i].Name == m.Name {
				vol = &p.Spec.Volumes[i]
			}
		}
		if vol == nil {
			n.errorf("pod %s mounts %s, no such volume", p.Name, m.Name)
			return
		}
		local := filepath.Join(podDir, m.Name)
		switch {
		case vol.HostPath != nil:
			local = vol.HostPath.Path
			if fi, err := os.Stat(local); err != nil || !fi.IsDir() {
				n.terminateCreate(ctx, &p, fmt.Sprintf("hostPath %s is not a directory on this node", local))
				return
			}
		case vol.EmptyDir != nil:
			os.MkdirAll(local, 0o755)
		case vol.ConfigMap != nil:
			cm, err := n.c.client.CoreV1().ConfigMaps(n.ns).Get(ctx, vol.ConfigMap.Name, metav1.GetOptions{})
			if err != nil {
				n.terminateCreate(ctx, &p, fmt.Sprintf("configmap %s: %v", vol.ConfigMap.Name, err))
				return
			}
			os.MkdirAll(local, 0o755)
			for k, v := range cm.Data {
				os.WriteFile(filepath.Join(local, k), []byte(v), 0o644)
			}
		default:
			n.errorf("pod %s: volume %s of a kind the node player does not know", p.Name, m.Name)
			return
		}
		mounts[m.MountPath] = local
	}
	remap := func(s string) string {
		keys := make([]string, 0, len(mounts))
		for k := range mounts {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
		for _, k := range keys {
			if k != mounts[k] && strings.Contains(s, k) {
				return strings.ReplaceAll(s, k, mounts[k])
			}
		}
		return s
	}
	env := append(os.Environ(), "PATH="+n.shadow+":"+os.Getenv("PATH"), "HOSTNAME="+p.Name)
	for _, e := range ctr.Env {
		v := e.Value
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			v = fieldRef(&p, e.ValueFrom.FieldRef.FieldPath)
		}
		env = append(env, e.Name+"="+remap(v))
	}
	argv := make([]string, len(ctr.Command))
	for i, a := range ctr.Command {
		argv[i] = remap(a)
	}
	argv = append(argv, ctr.Args...)
	logf, err := os.Create(filepath.Join(n.logs, p.Name+".log"))
	if err != nil {
		n.errorf("%v", err)
		return
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = remap(ctr.WorkingDir), env, logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		n.terminateCreate(ctx, &p, err.Error())
		return
	}
	n.mu.Lock()
	n.running[p.Name] = cmd
	n.mu.Unlock()
	err = cmd.Wait()
	logf.Close()
	n.mu.Lock()
	delete(n.running, p.Name)
	n.mu.Unlock()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
		if code < 0 {
			code = 137
		}
	} else if err != nil {
		code = 128
	}
	out, _ := os.ReadFile(logf.Name())
	n.terminate(ctx, &p, code, string(out))
}

// fieldRef resolves the downward API fields the Job controller uses
// (JOB_COMPLETION_INDEX comes from the index annotation).
func fieldRef(p *corev1.Pod, path string) string {
	for _, pre := range []struct {
		prefix string
		m      map[string]string
	}{{"metadata.annotations['", p.Annotations}, {"metadata.labels['", p.Labels}} {
		if k, ok := strings.CutPrefix(path, pre.prefix); ok {
			return pre.m[strings.TrimSuffix(k, "']")]
		}
	}
	switch path {
	case "metadata.name":
		return p.Name
	case "metadata.namespace":
		return p.Namespace
	case "spec.nodeName":
		return p.Spec.NodeName
	}
	return ""
}

// terminate reports the container's end: Succeeded on 0, else Failed
// with the exit code and (terminationMessagePolicy FallbackToLogsOnError)
// the log's last lines; a pod being deleted is then removed, as the
// kubelet removes it once its containers are gone.
func (n *node) terminate(ctx context.Context, p *corev1.Pod, code int, out string) {
	now := metav1.Now()
	n.setStatus(ctx, p.Name, func(st *corev1.PodStatus) {
		st.Phase = corev1.PodSucceeded
		reason := "Completed"
		if code != 0 {
			st.Phase, reason = corev1.PodFailed, "Error"
		}
		t := &corev1.ContainerStateTerminated{ExitCode: int32(code), Reason: reason, FinishedAt: now, StartedAt: now}
		if code != 0 {
			t.Message = lastLines(out, 20)
		}
		name := "shadow"
		if len(p.Spec.Containers) > 0 {
			name = p.Spec.Containers[0].Name
		}
		st.ContainerStatuses = []corev1.ContainerStatus{{Name: name, Image: p.Spec.Containers[0].Image, ImageID: "local",
			ContainerID: "node-player://" + p.Name, State: corev1.ContainerState{Terminated: t}}}
		if st.StartTime == nil {
			st.StartTime = &now
		}
	})
	cur, err := n.c.client.CoreV1().Pods(n.ns).Get(ctx, p.Name, metav1.GetOptions{})
	if err == nil && cur.DeletionTimestamp != nil {
		zero := int64(0)
		n.c.client.CoreV1().Pods(n.ns).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	}
}

// terminateCreate: the container could not be made (a mount missing).
func (n *node) terminateCreate(ctx context.Context, p *corev1.Pod, why string) {
	n.terminate(ctx, p, 128, why)
}

// setStatus updates the pod's status, retrying on a conflict with the
// controller's writes.
func (n *node) setStatus(ctx context.Context, name string, f func(*corev1.PodStatus)) {
	pods := n.c.client.CoreV1().Pods(n.ns)
	for i := 0; i < 20; i++ {
		cur, err := pods.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || ctx.Err() != nil {
			return
		}
		if err != nil {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		f(&cur.Status)
		if _, err = pods.UpdateStatus(ctx, cur, metav1.UpdateOptions{}); err == nil {
			return
		} else if !apierrors.IsConflict(err) {
			n.errorf("status of %s: %v", name, err)
			return
		}
	}
	n.errorf("status of %s: conflicts all along", name)
}

func ptr[T any](v T) *T { return &v }
