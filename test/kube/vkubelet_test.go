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
	"time"

	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
)

// vprovider is a virtual-kubelet provider (node.PodLifecycleHandler,
// node.PodNotifier and nodeutil.Provider) whose "containers" are processes
// on this machine: the pod controller of virtual-kubelet hands it the pods
// the scheduler bound to its node (with the downward API and ConfigMap
// environment already resolved), and it reports their status back through
// NotifyPods, as a kubelet reports what its runtime did. There is no image:
// the machine is the image (shadow first on the PATH, the checkout at the
// same path as the hostPath mirror names). Volumes: a hostPath is used
// where it is (type Directory checked, as the kubelet checks it), an
// emptyDir is a fresh directory, a ConfigMap's keys are files; a mount path
// in a command, argument, environment value or working directory is
// rewritten to where that volume is here (a process cannot have its own
// mount table without a runtime). Init containers run one after the other
// before the containers, which run side by side; restartPolicy Never only
// (a Job's pods).
type vprovider struct {
	node   string
	dir    string
	shadow string // directory holding the shadow binary, first on PATH
	image  string // the image the pods must name
	cms    corev1listers.ConfigMapLister

	mu      sync.Mutex
	pods    map[string]*vpod // namespace/name
	notify  func(*corev1.Pod)
	follows map[string]int // pod: log requests with follow=true served
	errs    []string
	wg      sync.WaitGroup
}

// vpod is one pod on the node: its object as the provider reports it, and
// its containers' processes and logs.
type vpod struct {
	pod     *corev1.Pod
	dir     string
	mounts  map[string]string // mount path in the pod: directory here
	logs    map[string]string // container: its log file (stdout and stderr)
	done    map[string]chan struct{}
	running map[string]*exec.Cmd
	env     map[string][]string // container: its environment, for exec
	deleted bool
}

func newProvider(node, dir, shadow, image string) *vprovider {
	return &vprovider{node: node, dir: dir, shadow: shadow, image: image,
		pods: map[string]*vpod{}, follows: map[string]int{}}
}

func podKey(ns, name string) string { return ns + "/" + name }

func (p *vprovider) errorf(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.errs = append(p.errs, fmt.Sprintf(format, a...))
}

// NotifyPods is how the pod controller learns of status changes
// (node.PodNotifier): each change is pushed, none polled.
func (p *vprovider) NotifyPods(_ context.Context, f func(*corev1.Pod)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.notify = f
}

// update changes a pod's status and pushes it to the pod controller.
func (p *vprovider) update(vp *vpod, f func(st *corev1.PodStatus)) {
	p.mu.Lock()
	f(&vp.pod.Status)
	pod, notify := vp.pod.DeepCopy(), p.notify
	p.mu.Unlock()
	if notify != nil {
		notify(pod)
	}
}

func (p *vprovider) CreatePod(ctx context.Context, pod *corev1.Pod) error {
	key := podKey(pod.Namespace, pod.Name)
	p.mu.Lock()
	if _, ok := p.pods[key]; ok {
		p.mu.Unlock()
		return nil
	}
	vp := &vpod{pod: pod.DeepCopy(), dir: filepath.Join(p.dir, "pods", pod.Namespace, pod.Name),
		mounts: map[string]string{}, logs: map[string]string{}, done: map[string]chan struct{}{},
		running: map[string]*exec.Cmd{}, env: map[string][]string{}}
	for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		vp.done[c.Name] = make(chan struct{})
	}
	now := metav1.Now()
	vp.pod.Status = corev1.PodStatus{Phase: corev1.PodPending, HostIP: "127.0.0.1", PodIP: "127.0.0.1",
		HostIPs: []corev1.HostIP{{IP: "127.0.0.1"}}, PodIPs: []corev1.PodIP{{IP: "127.0.0.1"}}, StartTime: &now,
		QOSClass:   pod.Status.QOSClass,
		Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now}}}
	p.pods[key] = vp
	p.mu.Unlock()
	p.wg.Add(1)
	go func() { defer p.wg.Done(); p.run(vp) }()
	return nil
}

// UpdatePod: a pod's spec does not change in ways this node acts on.
func (p *vprovider) UpdatePod(context.Context, *corev1.Pod) error { return nil }

// DeletePod stops the pod's processes as the kubelet does: SIGTERM, then
// SIGKILL once the grace period is over; the terminal status is then
// reported and the pod controller removes the pod from the API.
func (p *vprovider) DeletePod(_ context.Context, pod *corev1.Pod) error {
	p.mu.Lock()
	vp, ok := p.pods[podKey(pod.Namespace, pod.Name)]
	if !ok {
		p.mu.Unlock()
		return errdefs.NotFoundf("pod %s/%s is not on this node", pod.Namespace, pod.Name)
	}
	vp.deleted = true
	cmds := make([]*exec.Cmd, 0, len(vp.running))
	for _, c := range vp.running {
		cmds = append(cmds, c)
	}
	p.mu.Unlock()
	grace := 30 * time.Second
	if pod.DeletionGracePeriodSeconds != nil {
		grace = time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second
	}
	for _, c := range cmds {
		c.Process.Signal(syscall.SIGTERM)
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		deadline := time.After(grace)
		for _, d := range vp.done {
			select {
			case <-d:
				continue
			case <-deadline:
			}
			// The grace period is over: every container left is killed.
			p.mu.Lock()
			for _, c := range vp.running {
				c.Process.Kill()
			}
			p.mu.Unlock()
			<-d
			deadline = nil // past it: each wait below is for a killed process
		}
		// Containers never started end too (exit 137 as the kubelet reports
		// a container killed before it ran).
		p.update(vp, func(st *corev1.PodStatus) {
			if st.Phase != corev1.PodSucceeded && st.Phase != corev1.PodFailed {
				st.Phase = corev1.PodFailed
			}
			for i := range st.ContainerStatuses {
				if st.ContainerStatuses[i].State.Terminated == nil {
					st.ContainerStatuses[i].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Killed", FinishedAt: metav1.Now()}}
				}
			}
		})
		p.mu.Lock()
		delete(p.pods, podKey(pod.Namespace, pod.Name))
		p.mu.Unlock()
	}()
	return nil
}

func (p *vprovider) GetPod(_ context.Context, ns, name string) (*corev1.Pod, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	vp, ok := p.pods[podKey(ns, name)]
	if !ok {
		return nil, errdefs.NotFoundf("pod %s/%s is not on this node", ns, name)
	}
	return vp.pod.DeepCopy(), nil
}

func (p *vprovider) GetPodStatus(ctx context.Context, ns, name string) (*corev1.PodStatus, error) {
	pod, err := p.GetPod(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return &pod.Status, nil
}

func (p *vprovider) GetPods(context.Context) ([]*corev1.Pod, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*corev1.Pod, 0, len(p.pods))
	for _, vp := range p.pods {
		out = append(out, vp.pod.DeepCopy())
	}
	return out, nil
}

// run takes a pod from its volumes to its containers' end.
func (p *vprovider) run(vp *vpod) {
	pod := vp.pod
	for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		if c.Image != p.image {
			p.errorf("pod %s container %s runs image %q, want %q", pod.Name, c.Name, c.Image, p.image)
		}
	}
	if why := p.volumes(vp); why != "" {
		p.endPod(vp, 128, why)
		return
	}
	p.update(vp, func(st *corev1.PodStatus) {
		for i := range pod.Spec.Containers {
			st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{Name: pod.Spec.Containers[i].Name, Image: pod.Spec.Containers[i].Image,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}})
		}
	})
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		p.update(vp, func(st *corev1.PodStatus) {
			st.InitContainerStatuses = append(st.InitContainerStatuses, runningStatus(c))
		})
		code, msg := p.runContainer(vp, c)
		p.update(vp, func(st *corev1.PodStatus) {
			st.InitContainerStatuses[i] = terminatedStatus(c, code, msg)
		})
		if code != 0 {
			p.endPod(vp, -1, "")
			return
		}
	}
	now := metav1.Now()
	p.update(vp, func(st *corev1.PodStatus) {
		st.Phase = corev1.PodRunning
		for _, t := range []corev1.PodConditionType{corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
			st.Conditions = append(st.Conditions, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: now})
		}
		st.ContainerStatuses = nil
		for i := range pod.Spec.Containers {
			st.ContainerStatuses = append(st.ContainerStatuses, runningStatus(&pod.Spec.Containers[i]))
		}
	})
	var wg sync.WaitGroup
	codes := make([]int, len(pod.Spec.Containers))
	for i := range pod.Spec.Containers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &pod.Spec.Containers[i]
			code, msg := p.runContainer(vp, c)
			codes[i] = code
			p.update(vp, func(st *corev1.PodStatus) { st.ContainerStatuses[i] = terminatedStatus(c, code, msg) })
		}()
	}
	wg.Wait()
	p.update(vp, func(st *corev1.PodStatus) {
		st.Phase = corev1.PodSucceeded
		for _, code := range codes {
			if code != 0 {
				st.Phase = corev1.PodFailed
			}
		}
		for i := range st.Conditions {
			if t := st.Conditions[i].Type; t == corev1.PodReady || t == corev1.ContainersReady {
				st.Conditions[i].Status, st.Conditions[i].Reason = corev1.ConditionFalse, "PodCompleted"
			}
		}
	})
}

// endPod ends a pod none of whose containers ran (code >= 0: each
// container terminated with it and message), or whose init container
// failed (code -1: its status says so, the containers stay waiting, as
// the kubelet leaves them), as Failed.
func (p *vprovider) endPod(vp *vpod, code int, msg string) {
	for name, d := range vp.done {
		p.mu.Lock()
		if vp.logs[name] == "" {
			path := filepath.Join(vp.dir, "logs", name+".log")
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(msg+"\n"), 0o644)
			vp.logs[name] = path
		}
		p.mu.Unlock()
		select {
		case <-d:
		default:
			close(d)
		}
	}
	p.update(vp, func(st *corev1.PodStatus) {
		st.Phase = corev1.PodFailed
		if code < 0 {
			return
		}
		st.ContainerStatuses = nil
		for i := range vp.pod.Spec.Containers {
			st.ContainerStatuses = append(st.ContainerStatuses, terminatedStatus(&vp.pod.Spec.Containers[i], code, msg))
		}
	})
}

func runningStatus(c *corev1.Container) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: "local", ContainerID: "vprovider://" + c.Name,
		Ready: true, Started: ptr(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}}
}

// terminatedStatus is a container's end: with terminationMessagePolicy
// FallbackToLogsOnError a failed container's message is its log's last
// lines (the kubelet takes at most 80 lines or 2048 bytes).
func terminatedStatus(c *corev1.Container, code int, log string) corev1.ContainerStatus {
	reason := "Completed"
	t := &corev1.ContainerStateTerminated{ExitCode: int32(code), FinishedAt: metav1.Now()}
	if code != 0 {
		reason = "Error"
		if c.TerminationMessagePolicy == corev1.TerminationMessageFallbackToLogsOnError {
			m := lastLines(log, 80)
			if len(m) > 2048 {
				m = m[len(m)-2048:]
			}
			t.Message = m
		}
	}
	t.Reason = reason
	return corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: "local", ContainerID: "vprovider://" + c.Name,
		State: corev1.ContainerState{Terminated: t}}
}

// volumes makes each volume's directory here; a reason on failure (what
// the kubelet reports as FailedMount).
func (p *vprovider) volumes(vp *vpod) string {
	pod := vp.pod
	local := map[string]string{}
	for _, v := range pod.Spec.Volumes {
		dir := filepath.Join(vp.dir, "volumes", v.Name)
		switch {
		case v.HostPath != nil:
			dir = v.HostPath.Path
			if v.HostPath.Type != nil && *v.HostPath.Type == corev1.HostPathDirectory {
				if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
					return fmt.Sprintf("MountVolume.SetUp failed for volume %q: hostPath type check failed: %s is not a directory", v.Name, dir)
				}
			}
		case v.EmptyDir != nil:
			os.MkdirAll(dir, 0o755)
		case v.ConfigMap != nil:
			cm, err := p.configMap(pod.Namespace, v.ConfigMap.Name)
			if err != nil {
				return fmt.Sprintf("MountVolume.SetUp failed for volume %q: %v", v.Name, err)
			}
			os.MkdirAll(dir, 0o755)
			for k, val := range cm.Data {
				os.WriteFile(filepath.Join(dir, k), []byte(val), 0o644)
			}
		default:
			return fmt.Sprintf("volume %q: a kind this virtual node does not provide (hostPath, emptyDir and configMap only)", v.Name)
		}
		local[v.Name] = dir
	}
	for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		for _, m := range c.VolumeMounts {
			dir, ok := local[m.Name]
			if !ok {
				return fmt.Sprintf("container %s mounts %s: no such volume", c.Name, m.Name)
			}
			if m.SubPath != "" {
				dir = filepath.Join(dir, m.SubPath)
			}
			if prev, ok := vp.mounts[m.MountPath]; ok && prev != dir {
				return fmt.Sprintf("%s is mounted from two places (%s, %s): one mount table for all containers here", m.MountPath, prev, dir)
			}
			vp.mounts[m.MountPath] = dir
		}
	}
	return ""
}

// configMap is read through the informer's lister, which may not have
// synced when the first pod comes: it is waited for a while.
func (p *vprovider) configMap(ns, name string) (*corev1.ConfigMap, error) {
	var err error
	for i := 0; i < 50; i++ {
		var cm *corev1.ConfigMap
		if cm, err = p.cms.ConfigMaps(ns).Get(name); err == nil {
			return cm, nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return nil, err
}

// remap rewrites the pod's mount paths in s to where their volumes are
// here, the longest first (a mount inside another).
func (vp *vpod) remap(s string) string {
	keys := make([]string, 0, len(vp.mounts))
	for k := range vp.mounts {
		if k != vp.mounts[k] {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		s = strings.ReplaceAll(s, k, vp.mounts[k])
	}
	return s
}

// containerEnv is what a container's process gets: this machine's
// environment (the machine is the image), shadow first on the PATH, and the
// container's own variables (resolved by virtual-kubelet's pod controller).
func (p *vprovider) containerEnv(vp *vpod, c *corev1.Container) []string {
	env := append(os.Environ(), "PATH="+p.shadow+":"+os.Getenv("PATH"), "HOSTNAME="+vp.pod.Name)
	for _, e := range c.Env {
		env = append(env, e.Name+"="+vp.remap(e.Value))
	}
	return env
}

// runContainer runs a container's command to its end; its exit code and
// log.
func (p *vprovider) runContainer(vp *vpod, c *corev1.Container) (int, string) {
	defer close(vp.done[c.Name])
	path := filepath.Join(vp.dir, "logs", c.Name+".log")
	os.MkdirAll(filepath.Dir(path), 0o755)
	logf, err := os.Create(path)
	if err != nil {
		return 128, err.Error()
	}
	p.mu.Lock()
	vp.logs[c.Name] = path
	deleted := vp.deleted
	p.mu.Unlock()
	if deleted {
		logf.Close()
		return 137, "deleted before it started"
	}
	argv := append(append([]string{}, c.Command...), c.Args...)
	if len(argv) == 0 {
		logf.Close()
		return 128, "no command: this node has no image entrypoint to run"
	}
	for i := range argv {
		argv[i] = vp.remap(argv[i])
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	env := p.containerEnv(vp, c)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = vp.remap(c.WorkingDir), env, logf, logf
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(logf, err)
		logf.Close()
		return 128, err.Error()
	}
	p.mu.Lock()
	vp.running[c.Name], vp.env[c.Name] = cmd, env
	p.mu.Unlock()
	err = cmd.Wait()
	logf.Close()
	p.mu.Lock()
	delete(vp.running, c.Name)
	p.mu.Unlock()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		if code = ee.ExitCode(); code < 0 { // killed by a signal: 128+n, as a runtime reports it
			code = 128 + int(ee.Sys().(syscall.WaitStatus).Signal())
		}
	} else if err != nil {
		code = 128
	}
	out, _ := os.ReadFile(path)
	return code, string(out)
}
