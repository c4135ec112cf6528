// Package kube runs a spec's shards as a Kubernetes Indexed Job and
// collects them: the Job and the ConfigMap holding the spec (Build), their
// creation through the API (Apply), and the pods' event streams merged as
// `shadow merge` merges shard reports (Collect). It talks to the API with
// client-go's typed batch/v1 and core/v1 clients only.
package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Labels and annotations shadow puts on what it makes. The Job
// controller adds its own to each pod: batch.kubernetes.io/job-name and
// batch.kubernetes.io/job-completion-index (LabelJobName, LabelIndex).
const (
	LabelManagedBy = "app.kubernetes.io/managed-by"
	LabelRun       = "shadow.dev/job"
	AnnoShards     = "shadow.dev/shards"
	LabelJobName   = "batch.kubernetes.io/job-name"
	LabelIndex     = "batch.kubernetes.io/job-completion-index"
	// Container is the pods' one container: the exit-code rules of the
	// pod failure policy and the log requests name it.
	Container = "shadow"
	// SpecKey is the ConfigMap's key holding the spec, SpecMount where
	// the pods see it.
	SpecKey   = "spec.json"
	SpecMount = "/etc/shadow-spec"
	// StateMount is the emptyDir holding shadow's state dir in each pod
	// (XDG_STATE_HOME): the overlay uppers, the sandboxes. The checkout is
	// read-only; the uppers must be on a filesystem overlayfs accepts as
	// an upper (the node's disk, not the container's own overlay root).
	StateMount = "/var/lib/shadow"
)

// Options describe the Job `shadow kube job` makes.
type Options struct {
	Name, Namespace string
	Image           string
	// Shadow is the shadow binary in the image (default "shadow": on its PATH).
	Shadow string
	Shards int
	// Workspace is the checkout's path, where the pods see the mirror;
	// Mirror is the mirror's path on the nodes (default Workspace).
	Workspace, Mirror string
	// WorkDir is the pods' working directory: the spec's own directory
	// when it lies in the checkout, so its relative "file" sources resolve
	// as they do here (the spec is read from stdin, which resolves them
	// against the working directory).
	WorkDir string
	// Spec is the spec's bytes; SpecName its file name, for people.
	Spec     []byte
	SpecName string
	// RunArgs are run flags passed on to every shard; Command the test command.
	RunArgs, Command []string
	NodeSelector     map[string]string
	// BackoffLimitPerIndex: how many times one index is retried after a
	// failed pod before that index fails (the others go on).
	BackoffLimitPerIndex int32
	// TTL: seconds the finished Job (and its pods, their logs, the
	// ConfigMap it owns) stay before the TTL controller deletes them.
	TTL int32
	// CPUs, when > 0, is each pod's CPU request (and limit) and its -j.
	CPUs       int
	Privileged bool
}

// Exit codes of a shard (docs/cli.md "Exit codes") and what the Job does
// with each. The pod's wrapper turns 0 and 1 ("this shard ran, with or
// without a winner in its slice") into 0, so the Job controller counts the
// index done; anything else fails the pod, and the pod failure policy
// decides (see docs/kube.md):
//
//	2   the spec or the flags were refused: every retry would be refused
//	    alike, so the whole Job fails at once (FailJob);
//	3   this node cannot run it (no user namespaces, a toolchain missing):
//	    counted against the index's backoffLimitPerIndex, retried in a new
//	    pod that may land on another node (Count);
//	130 interrupted (SIGTERM: a drain, a preemption): not counted, the
//	    index runs again (Ignore), as for a disruption of the pod.
const (
	exitRefused     = 2
	exitEnv         = 3
	exitInterrupted = 130
)

// wrapper is the container's shell: shadow with the spec on stdin, a
// SIGTERM passed on to it (a shell as PID 1 would ignore it, and shadow's
// own 130 would become the kubelet's SIGKILL), and exit 0 for a shard that
// ran (0 or 1), its code otherwise.
const wrapper = `"$@" < ` + SpecMount + `/` + SpecKey + ` & pid=$!
trap 'kill -TERM "$pid" 2>/dev/null' TERM INT
wait "$pid"; rc=$?
while kill -0 "$pid" 2>/dev/null; do wait "$pid"; rc=$?; done
# 0: a winner in this shard, 1: none. Either way it ran and its report counts.
if [ "$rc" -le 1 ]; then exit 0; fi
exit "$rc"
`

// DefaultName is a Job name for one run: the spec, the command, the shard
// count and the checkout's commit, so the same run asked twice is the same
// Job (the API refuses the second: AlreadyExists) and another run another.
func DefaultName(spec []byte, command []string, shards int, commit string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00", shards, commit, strings.Join(command, "\x00"))
	h.Write(spec)
	return "shadow-" + hex.EncodeToString(h.Sum(nil))[:10]
}

// Check refuses options the API would refuse, with the flag to change.
func (o *Options) Check() error {
	if msgs := validation.IsDNS1123Label(o.Name); len(msgs) > 0 {
		return fmt.Errorf("--name %q: %s", o.Name, strings.Join(msgs, "; "))
	}
	// The Job controller labels each pod with the Job's name, and a
	// label value has at most 63 characters.
	if len(o.Name) > 63 {
		return fmt.Errorf("--name %q: at most 63 characters", o.Name)
	}
	if o.Namespace != "" {
		if msgs := validation.IsDNS1123Label(o.Namespace); len(msgs) > 0 {
			return fmt.Errorf("--namespace %q: %s", o.Namespace, strings.Join(msgs, "; "))
		}
	}
	if o.Image == "" {
		return fmt.Errorf("--image: say which image the pods run (shadow and the project's toolchain: docs/kube.md)")
	}
	if o.Shards < 1 {
		return fmt.Errorf("--shards %d: want at least 1", o.Shards)
	}
	if o.BackoffLimitPerIndex < 0 {
		return fmt.Errorf("--backoff-limit-per-index %d: want 0 or more", o.BackoffLimitPerIndex)
	}
	if !filepath.IsAbs(o.Workspace) || !filepath.IsAbs(o.Mirror) {
		return fmt.Errorf("--mirror %q: want an absolute path on the nodes", o.Mirror)
	}
	for k, v := range o.NodeSelector {
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			return fmt.Errorf("--node-selector %s=%s: %s", k, v, strings.Join(msgs, "; "))
		}
		if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
			return fmt.Errorf("--node-selector %s=%s: %s", k, v, strings.Join(msgs, "; "))
		}
	}
	return nil
}

// ConfigMapName is the ConfigMap holding the Job's spec.
func ConfigMapName(job string) string { return job + "-spec" }

// Build makes the Job and its ConfigMap. The ConfigMap is not yet owned
// by the Job (the owner reference needs the Job's UID, which the API
// gives at creation): Apply adds it.
func Build(o Options) (*batchv1.Job, *corev1.ConfigMap) {
	shadow := o.Shadow
	if shadow == "" {
		shadow = "shadow"
	}
	labels := map[string]string{LabelManagedBy: "shadow", LabelRun: o.Name}
	cm := &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Name: ConfigMapName(o.Name), Namespace: o.Namespace, Labels: labels,
			Annotations: map[string]string{"shadow.dev/spec-file": o.SpecName},
		},
		Data: map[string]string{SpecKey: string(o.Spec)},
	}

	argv := []string{shadow, "--headless", "--events", "--shard-index-env=JOB_COMPLETION_INDEX",
		"--shard=/" + strconv.Itoa(o.Shards), "-C", o.Workspace, "--no-record"}
	argv = append(argv, o.RunArgs...)
	argv = append(append(argv, "-", "--"), o.Command...)
	// sh -c SCRIPT NAME ARG...: $0 is NAME, "$@" the rest (sh(1)).
	command := append([]string{"/bin/sh", "-c", wrapper, "shadow-shard"}, argv...)

	hostPathDir := corev1.HostPathDirectory
	c := corev1.Container{
		Name: Container, Image: o.Image, Command: command, WorkingDir: o.WorkDir,
		Env: []corev1.EnvVar{{Name: "XDG_STATE_HOME", Value: StateMount}},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "checkout", MountPath: o.Workspace, ReadOnly: true},
			{Name: "state", MountPath: StateMount},
			{Name: "spec", MountPath: SpecMount, ReadOnly: true},
		},
		// The report comes from the log; the termination message keeps the
		// last lines of a failed pod for `kube collect`'s refusal.
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
	}
	if o.CPUs > 0 {
		q := resource.MustParse(strconv.Itoa(o.CPUs))
		c.Resources = corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: q},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: q},
		}
	}
	if o.Privileged {
		t := true
		c.SecurityContext = &corev1.SecurityContext{Privileged: &t}
	}
	pod := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{
			// Never: a failed pod is replaced by a new one, which the pod
			// failure policy and backoffLimitPerIndex require.
			RestartPolicy: corev1.RestartPolicyNever,
			NodeSelector:  o.NodeSelector,
			Containers:    []corev1.Container{c},
			Volumes: []corev1.Volume{
				{Name: "checkout", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: o.Mirror, Type: &hostPathDir}}},
				{Name: "state", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "spec", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}},
			},
		},
	}
	n := int32(o.Shards)
	indexed := batchv1.IndexedCompletion
	backoff, ttl := o.BackoffLimitPerIndex, o.TTL
	name := Container
	job := &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name: o.Name, Namespace: o.Namespace, Labels: labels,
			Annotations: map[string]string{AnnoShards: strconv.Itoa(o.Shards)},
		},
		Spec: batchv1.JobSpec{
			CompletionMode:          &indexed,
			Completions:             &n,
			Parallelism:             &n,
			BackoffLimitPerIndex:    &backoff,
			TTLSecondsAfterFinished: &ttl,
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
				{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
					ContainerName: &name, Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{exitRefused}}},
				{Action: batchv1.PodFailurePolicyActionIgnore, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
					ContainerName: &name, Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{exitInterrupted}}},
				{Action: batchv1.PodFailurePolicyActionCount, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
					ContainerName: &name, Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{exitEnv}}},
				// A pod evicted or preempted did not fail of itself.
				{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{
					{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}},
			}},
			Template: pod,
		},
	}
	return job, cm
}

// ParseSelector reads --node-selector values: KEY=VALUE, several
// separated by commas, repeatable.
func ParseSelector(vals []string) (map[string]string, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, v := range vals {
		for _, kv := range strings.Split(v, ",") {
			k, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("--node-selector %q: want KEY=VALUE[,KEY=VALUE...]", v)
			}
			out[k] = val
		}
	}
	return out, nil
}
