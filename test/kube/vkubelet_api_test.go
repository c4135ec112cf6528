//go:build linux

package kube

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	"github.com/virtual-kubelet/virtual-kubelet/node/api"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

// The kubelet API the API server proxies to (pods/log, pods/exec): what
// vprovider serves of it.

// container finds a pod's container by name ("" is the pod's only one, as
// the kubelet takes it).
func (p *vprovider) container(ns, pod, name string) (*vpod, string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	vp, ok := p.pods[podKey(ns, pod)]
	if !ok {
		return nil, "", errdefs.NotFoundf("pod %s/%s is not on this node", ns, pod)
	}
	if name == "" && len(vp.pod.Spec.Containers) == 1 {
		name = vp.pod.Spec.Containers[0].Name
	}
	if _, ok := vp.done[name]; !ok {
		return nil, "", errdefs.NotFoundf("container %s is not valid for pod %s", name, pod)
	}
	return vp, name, nil
}

// GetContainerLogs serves a container's log (stdout and stderr as they
// were written). follow=true streams it until the container has ended
// and all of it is sent, or the client goes; tailLines and limitBytes are
// honoured, the rest (timestamps, since, previous: one attempt per pod
// here) are not.
func (p *vprovider) GetContainerLogs(ctx context.Context, ns, pod, name string, opts api.ContainerLogOpts) (io.ReadCloser, error) {
	vp, name, err := p.container(ns, pod, name)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	path, done := vp.logs[name], vp.done[name]
	if opts.Follow {
		p.follows[pod]++
	}
	p.mu.Unlock()
	if path == "" {
		// The kubelet's words for it (a 400 through the API server).
		return nil, errdefs.InvalidInputf("container %q in pod %q is waiting to start: PodInitializing", name, pod)
	}
	if !opts.Follow {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if opts.Tail > 0 {
			lines := strings.SplitAfter(string(data), "\n")
			if lines[len(lines)-1] == "" {
				lines = lines[:len(lines)-1]
			}
			if len(lines) > opts.Tail {
				data = []byte(strings.Join(lines[len(lines)-opts.Tail:], ""))
			}
		}
		if opts.LimitBytes > 0 && len(data) > opts.LimitBytes {
			data = data[:opts.LimitBytes]
		}
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, w := io.Pipe()
	go func() {
		defer f.Close()
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				if _, werr := w.Write(buf[:n]); werr != nil {
					return // the client went
				}
				continue
			}
			if err != nil && err != io.EOF {
				w.CloseWithError(err)
				return
			}
			// At the end of what is written so far: more comes while the
			// container runs; once it has ended, one more read drains it.
			select {
			case <-done:
				io.Copy(w, f)
				w.Close()
				return
			case <-ctx.Done():
				w.CloseWithError(ctx.Err())
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return r, nil
}

// RunInContainer is pods/exec: the command runs as a process beside the
// container's, with its environment and working directory (there is no
// container to enter), while the container runs (the kubelet refuses a
// container that is not running).
func (p *vprovider) RunInContainer(ctx context.Context, ns, pod, name string, cmd []string, attach api.AttachIO) error {
	vp, name, err := p.container(ns, pod, name)
	if err != nil {
		return err
	}
	p.mu.Lock()
	running, env := vp.running[name], vp.env[name]
	var dir string
	for _, c := range vp.pod.Spec.Containers {
		if c.Name == name {
			dir = vp.remap(c.WorkingDir)
		}
	}
	p.mu.Unlock()
	if running == nil {
		return errdefs.InvalidInputf("container %s of pod %s is not running", name, pod)
	}
	if len(cmd) == 0 {
		return errdefs.InvalidInput("no command to run")
	}
	argv := make([]string, len(cmd))
	for i, a := range cmd {
		argv[i] = vp.remap(a)
	}
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Dir, c.Env = dir, env
	if attach.Stdin() != nil {
		c.Stdin = attach.Stdin()
	}
	if attach.Stdout() != nil {
		c.Stdout = attach.Stdout()
		defer attach.Stdout().Close()
	}
	if attach.Stderr() != nil {
		c.Stderr = attach.Stderr()
		defer attach.Stderr().Close()
	}
	// An exit code is reported to the client as the kubelet does: a
	// non-zero exit is an error carrying it.
	if err := c.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return exitCodeError{code: ee.ExitCode()}
		}
		return err
	}
	return nil
}

// exitCodeError is how the remotecommand server learns a command's exit
// code (k8s.io/client-go/util/exec.ExitError).
type exitCodeError struct{ code int }

func (e exitCodeError) Error() string {
	return fmt.Sprintf("command terminated with exit code %d", e.code)
}
func (e exitCodeError) String() string  { return e.Error() }
func (e exitCodeError) Exited() bool    { return true }
func (e exitCodeError) ExitStatus() int { return e.code }

// Attach, port forwarding, stats and metrics: not served (501 through the
// API server); nothing shadow does needs them.
func (p *vprovider) AttachToContainer(context.Context, string, string, string, api.AttachIO) error {
	return errdefs.InvalidInput("attach is not served by this virtual node")
}

func (p *vprovider) PortForward(context.Context, string, string, int32, io.ReadWriteCloser) error {
	return errdefs.InvalidInput("port forwarding is not served by this virtual node")
}

func (p *vprovider) GetStatsSummary(context.Context) (*statsv1alpha1.Summary, error) {
	return nil, errdefs.InvalidInput("stats are not served by this virtual node")
}

func (p *vprovider) GetMetricsResource(context.Context) ([]*dto.MetricFamily, error) {
	return nil, errdefs.InvalidInput("metrics are not served by this virtual node")
}
