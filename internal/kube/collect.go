package kube

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/run"
)

// CollectOptions say which Job to collect and how its pods' output is read.
type CollectOptions struct {
	Job string
	// LogsDir, when set, holds each pod's output as POD.log, read instead
	// of the pod log API: for clusters whose logs are shipped elsewhere
	// (and the e2e test, which has no kubelet to serve them).
	LogsDir string
	// Poll is how often the Job and its pods are read (default 2s).
	Poll time.Duration
	// Progress, when set, gets a line per finished hypothesis of each
	// running pod (its log followed) and per collected shard.
	Progress io.Writer
}

// Shard is one collected shard: its report and where it came from.
type Shard struct {
	Index  int
	Pod    string
	Report *engine.Report
}

// Label names the shard in a merge's refusals.
func (s Shard) Label() string { return fmt.Sprintf("shard %d (pod %s)", s.Index, s.Pod) }

// Collect waits for the Job to finish and returns, for each index, the
// report of the pod that completed it (the run_finished event of its
// --events stream), in index order. A failed Job, or an index whose pod
// and log are gone, is refused (exit 2, as `shadow merge` refuses a
// missing index), naming the index, the pod and why.
func (c *Client) Collect(ctx context.Context, o CollectOptions) ([]Shard, error) {
	poll := o.Poll
	if poll <= 0 {
		poll = 2 * time.Second
	}
	collected := map[int]Shard{}
	pending := map[string]string{}
	f := &follower{c: c, out: o.Progress, seen: map[string]bool{}}
	ctx, cancel := context.WithCancel(ctx)
	defer func() { cancel(); f.wg.Wait() }()
	for {
		job := &batchv1.Job{}
		err := c.batch.get(ctx, c.Namespace, "jobs", o.Job, job)
		if apierrors.IsNotFound(err) {
			return nil, &run.Error{Code: run.ExitUsage, Msg: fmt.Sprintf("kube collect: no job %s in namespace %s", o.Job, c.Namespace),
				Fix: "name the Job shadow kube job made (--namespace too); a finished Job is deleted with its pods when its ttlSecondsAfterFinished runs out: collect before"}
		}
		if err != nil {
			return nil, c.apiErr("get job "+c.Namespace+"/"+o.Job, err)
		}
		shards, err := shardCount(job)
		if err != nil {
			return nil, err
		}
		pods := &corev1.PodList{}
		if err := c.core.list(ctx, c.Namespace, "pods", LabelJobName+"="+o.Job, pods); err != nil {
			return nil, c.apiErr("list the pods of job "+c.Namespace+"/"+o.Job, err)
		}
		sort.Slice(pods.Items, func(i, j int) bool { return pods.Items[i].Name < pods.Items[j].Name })
		for i := range pods.Items {
			p := &pods.Items[i]
			idx, ok := podIndex(p)
			if !ok {
				continue
			}
			if o.LogsDir == "" && o.Progress != nil && p.Status.Phase == corev1.PodRunning {
				f.follow(ctx, p.Name, idx)
			}
			if why := unscheduled(p); why != "" && pending[p.Name] != why {
				// A pod no node takes waits, and so would collect,
				// silently: say why (the scheduler's own words).
				pending[p.Name] = why
				f.say("shard %d (pod %s) is not scheduled: %s\n", idx, p.Name, why)
			}
			if _, done := collected[idx]; done || p.Status.Phase != corev1.PodSucceeded {
				continue
			}
			data, err := c.podLog(ctx, p.Name, o.LogsDir)
			if err != nil {
				return nil, err
			}
			rep, err := ReportFromLog(data)
			if err != nil {
				return nil, &run.Error{Code: run.ExitUsage, Msg: fmt.Sprintf("kube collect: shard %d (pod %s) succeeded, but its output is not a shard's report: %v", idx, p.Name, err)}
			}
			collected[idx] = Shard{Index: idx, Pod: p.Name, Report: rep}
			f.say("shard %d of %d collected (pod %s)\n", idx, shards, p.Name)
		}
		if cond := finished(job); cond != nil {
			if cond.Type == batchv1.JobFailed {
				return nil, failedJob(job, cond, pods.Items)
			}
			var missing []string
			for k := 0; k < shards; k++ {
				if _, ok := collected[k]; !ok {
					missing = append(missing, strconv.Itoa(k))
				}
			}
			if len(missing) > 0 {
				return nil, &run.Error{Code: run.ExitUsage, Msg: fmt.Sprintf("kube collect: job %s completed, but shard %s of %d has no pod left to read", o.Job, strings.Join(missing, ", "), shards),
					Fix: "its pod was deleted (ttlSecondsAfterFinished, or by hand): collect sooner, or run that index again (shadow --shard K/N) and shadow merge the reports"}
			}
			out := make([]Shard, 0, shards)
			for k := 0; k < shards; k++ {
				out = append(out, collected[k])
			}
			return out, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(poll):
		}
	}
}

// unscheduled is why the scheduler has not placed a pending pod (its
// PodScheduled condition, False: "0/3 nodes are available: 3 node(s)
// didn't match Pod's node affinity/selector..."), "" once it has or while
// it has not said.
func unscheduled(p *corev1.Pod) string {
	if p.Status.Phase != corev1.PodPending || p.Spec.NodeName != "" {
		return ""
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			why := c.Reason
			if c.Message != "" {
				why += ": " + c.Message
			}
			return why + " (--node-selector, --toleration, --cpus and --pod-memory decide which nodes may take it)"
		}
	}
	return ""
}

// shardCount is the Job's shard count: shadow's annotation, else its
// completions (a Job made otherwise).
func shardCount(job *batchv1.Job) (int, error) {
	if n, err := strconv.Atoi(job.Annotations[AnnoShards]); err == nil && n > 0 {
		return n, nil
	}
	if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion || job.Spec.Completions == nil {
		return 0, &run.Error{Code: run.ExitUsage, Msg: fmt.Sprintf("kube collect: job %s is not an Indexed Job: not one shadow kube job made", job.Name)}
	}
	return int(*job.Spec.Completions), nil
}

// podIndex is the completion index the Job controller gave the pod.
func podIndex(p *corev1.Pod) (int, bool) {
	v, ok := p.Labels[LabelIndex]
	if !ok {
		v, ok = p.Annotations[LabelIndex]
	}
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil && n >= 0
}

// finished is the Job's Complete or Failed condition, nil while it runs.
func finished(job *batchv1.Job) *batchv1.JobCondition {
	for i := range job.Status.Conditions {
		c := &job.Status.Conditions[i]
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// failedJob says why the Job failed: the controller's reason (a pod
// failure policy rule, an index past its backoffLimitPerIndex), the failed
// indexes, and each failed pod's exit code and last lines.
func failedJob(job *batchv1.Job, cond *batchv1.JobCondition, pods []corev1.Pod) error {
	var b strings.Builder
	fmt.Fprintf(&b, "kube collect: job %s failed (%s: %s)", job.Name, cond.Reason, cond.Message)
	if fi := job.Status.FailedIndexes; fi != nil && *fi != "" {
		fmt.Fprintf(&b, "; failed indexes %s", *fi)
	}
	for _, p := range pods {
		if p.Status.Phase != corev1.PodFailed {
			continue
		}
		idx, _ := podIndex(&p)
		for _, cs := range p.Status.ContainerStatuses {
			if t := cs.State.Terminated; t != nil && cs.Name == Container {
				fmt.Fprintf(&b, "\n  shard %d, pod %s: exit %d", idx, p.Name, t.ExitCode)
				if m := strings.TrimSpace(t.Message); m != "" {
					fmt.Fprintf(&b, ": %s", lastLines(m, 3))
				}
			}
		}
	}
	return &run.Error{Code: run.ExitUsage, Msg: b.String(),
		Fix: "exit 2 is a refused spec or flag (fix it and make a new Job); 3 a node that cannot run shadow (shadow probe on it); see docs/kube.md"}
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// podLog is a finished pod's whole output: from the log API, or
// DIR/POD.log.
func (c *Client) podLog(ctx context.Context, pod, dir string) ([]byte, error) {
	if dir != "" {
		data, err := os.ReadFile(filepath.Join(dir, pod+".log"))
		if err != nil {
			return nil, &run.Error{Code: run.ExitUsage, Msg: "kube collect: pod " + pod + "'s output", Reason: err.Error(),
				Fix: "--logs-dir must hold POD.log for each pod; without it the pod log API is read"}
		}
		return data, nil
	}
	rc, err := c.core.logs(ctx, c.Namespace, pod, &corev1.PodLogOptions{Container: Container})
	if err != nil {
		return nil, c.apiErr("read the log of pod "+c.Namespace+"/"+pod+" (the kubelet serves it; RBAC needs pods/log get)", err)
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// ReportFromLog finds the report in a pod's output: the run_finished event
// of its --events stream. A container's log interleaves stderr (progress,
// notices) with stdout, so lines that are not shadow events are skipped.
// Only events of the stream's run (the first run_started's run id) count,
// and the last run_finished of it is the report: shadow writes it last,
// after every command of the shard has ended, so a line a command managed
// to put in the log (a forged run_finished) cannot stand in for it. A
// stream without run_finished did not finish.
func ReportFromLog(data []byte) (*engine.Report, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	events := 0
	runID := ""
	var report *engine.Report
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if !bytes.HasPrefix(line, []byte("{")) {
			continue
		}
		var ev struct {
			Schema string         `json:"schema"`
			Run    string         `json:"run"`
			Kind   string         `json:"kind"`
			Report *engine.Report `json:"report"`
		}
		if json.Unmarshal(line, &ev) != nil || ev.Schema != engine.EventSchema {
			continue
		}
		events++
		switch {
		case runID == "" && ev.Kind == engine.KindRunStarted:
			runID = ev.Run
		case ev.Run != runID:
			continue
		case ev.Kind == engine.KindRunFinished && ev.Report != nil:
			report = ev.Report
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	switch {
	case report != nil:
		return report, nil
	case events == 0:
		return nil, fmt.Errorf("no shadow event in it (was shadow run with --events?)")
	}
	return nil, fmt.Errorf("its event stream ends before run_finished: that shard did not finish")
}

// follower streams the logs of running pods (follow=true) and prints a
// line per finished hypothesis: progress only; the report is read again
// whole once the pod succeeded.
type follower struct {
	c    *Client
	out  io.Writer
	mu   sync.Mutex
	seen map[string]bool
	wg   sync.WaitGroup
}

func (f *follower) follow(ctx context.Context, pod string, idx int) {
	if f.seen[pod] {
		return
	}
	f.seen[pod] = true
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		rc, err := f.c.core.logs(ctx, f.c.Namespace, pod, &corev1.PodLogOptions{Container: Container, Follow: true})
		if err != nil {
			return // progress only: the report is read when the pod is done
		}
		defer rc.Close()
		sc := bufio.NewScanner(rc)
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		for sc.Scan() {
			var ev engine.Event
			if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Kind != engine.KindHypFinished || ev.Result == nil {
				continue
			}
			f.say("shard %d: %s %s\n", idx, ev.Result.Name, ev.Result.Status)
		}
	}()
}

func (f *follower) say(format string, a ...any) {
	if f.out == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	fmt.Fprintf(f.out, format, a...)
}
