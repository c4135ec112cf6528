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
	// Workspace is the checkout's path, where the pods see the mirror.
	Workspace string
	// Mirror is where the pods' copy of the checkout comes from
	// (docs/kube.md "The mirror").
	Mirror Mirror
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
	Tolerations      []corev1.Toleration
	// ServiceAccount is the pods' serviceAccountName ("": the
	// namespace's default); ImagePullSecrets the secrets the kubelet
	// pulls the image with.
	ServiceAccount   string
	ImagePullSecrets []string
	// BackoffLimitPerIndex: how many times one index is retried after a
	// failed pod before that index fails (the others go on).
	BackoffLimitPerIndex int32
	// TTL: seconds the finished Job (and its pods, their logs, the
	// ConfigMap it owns) stay before the TTL controller deletes them.
	TTL int32
	// CPUs, when > 0, is each pod's CPU request and limit (and its -j);
	// Memory, when set, its memory request and limit (a quantity:
	// "4Gi"). Both set: the Guaranteed QoS class, the last pods a node
	// under pressure evicts.
	CPUs       int
	Memory     string
	Privileged bool
}

// Mirror says where the pods' copy of the checkout comes from; exactly one
// of its fields is set.
type Mirror struct {
	// HostPath: a directory on every node that may run the pods (a
	// hostPath volume, which Pod Security's baseline level refuses).
	HostPath string
	// PVC: a PersistentVolumeClaim holding the checkout (ReadOnlyMany,
	// mounted read-only), SubPath the checkout's directory in it.
	PVC, SubPath string
	// Git: a repository URL an init container fetches Commit from into
	// an emptyDir at the checkout's path (every branch and tag: --ref
	// hypotheses name them).
	Git, Commit string
}

// Kind names the source, for people.
func (m Mirror) Kind() string {
	switch {
	case m.HostPath != "":
		return "hostPath " + m.HostPath
	case m.PVC != "":
		return "persistentVolumeClaim " + m.PVC
	}
	return "git " + m.Git + " at " + m.Commit
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

// MirrorContainer is the init container fetching a git mirror.
const MirrorContainer = "mirror"

// mirrorScript fills the emptyDir at the checkout's path with the commit
// the checkout here is at: git init and a fetch of every branch and tag
// (not a shallow clone: --ref hypotheses and merge bases need the
// history), then a detached checkout of the commit. Its exit codes follow
// the pod failure policy: 3 when the repository cannot be read (the
// network, credentials: another try, maybe on another node, may do), 2
// when it lacks the commit (not pushed: every retry would fail alike).
const mirrorScript = `url=$1 commit=$2 ws=$3
git init -q "$ws" || exit 3
git -C "$ws" fetch -q --update-head-ok "$url" '+refs/heads/*:refs/heads/*' '+refs/tags/*:refs/tags/*' || { echo "shadow: cannot fetch $url"; exit 3; }
if ! git -C "$ws" cat-file -e "$commit^{commit}" 2>/dev/null; then
  echo "shadow: $url has no commit $commit: push it (the pods run the commit the checkout is at)"
  exit 2
fi
git -C "$ws" -c advice.detachedHead=false checkout -q --detach "$commit" || exit 3
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
	if !filepath.IsAbs(o.Workspace) {
		return fmt.Errorf("the checkout %q: want an absolute path", o.Workspace)
	}
	m := o.Mirror
	switch n := btoi(m.HostPath != "") + btoi(m.PVC != "") + btoi(m.Git != ""); {
	case n > 1:
		return fmt.Errorf("--mirror, --mirror-pvc and --mirror-git: give one")
	case n == 0:
		return fmt.Errorf("no mirror: the checkout has no origin remote to fetch from; give --mirror-git URL (a repository the pods can read), --mirror-pvc CLAIM or --mirror PATH (a hostPath: docs/kube.md \"The mirror\")")
	case m.HostPath != "" && !filepath.IsAbs(m.HostPath):
		return fmt.Errorf("--mirror %q: want an absolute path on the nodes", m.HostPath)
	case m.PVC != "" && len(validation.IsDNS1123Subdomain(m.PVC)) > 0:
		return fmt.Errorf("--mirror-pvc %q: %s", m.PVC, strings.Join(validation.IsDNS1123Subdomain(m.PVC), "; "))
	case m.SubPath != "" && (filepath.IsAbs(m.SubPath) || !filepath.IsLocal(m.SubPath)):
		return fmt.Errorf("--mirror-pvc %s:%s: the path in the claim must be relative, without ..", m.PVC, m.SubPath)
	case m.Git != "" && len(m.Commit) < 7:
		return fmt.Errorf("--mirror-git %s: the checkout has no commit to fetch (commit first)", m.Git)
	}
	if o.CPUs < 0 {
		return fmt.Errorf("--cpus %d: want 0 (no request) or more", o.CPUs)
	}
	if o.Memory != "" {
		q, err := resource.ParseQuantity(o.Memory)
		if err != nil || q.Sign() <= 0 {
			return fmt.Errorf("--pod-memory %q: want a quantity such as 4Gi or 512Mi", o.Memory)
		}
	}
	if o.ServiceAccount != "" && len(validation.IsDNS1123Subdomain(o.ServiceAccount)) > 0 {
		return fmt.Errorf("--service-account %q: %s", o.ServiceAccount, strings.Join(validation.IsDNS1123Subdomain(o.ServiceAccount), "; "))
	}
	for _, sec := range o.ImagePullSecrets {
		if msgs := validation.IsDNS1123Subdomain(sec); len(msgs) > 0 {
			return fmt.Errorf("--image-pull-secret %q: %s", sec, strings.Join(msgs, "; "))
		}
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

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
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

	// git refuses a repository another user owns ("dubious ownership"):
	// a hostPath or claim's files may be anyone's. GIT_CONFIG_* is git's
	// environment form of -c (git-config(1), ENVIRONMENT).
	gitSafe := []corev1.EnvVar{{Name: "GIT_CONFIG_COUNT", Value: "1"},
		{Name: "GIT_CONFIG_KEY_0", Value: "safe.directory"}, {Name: "GIT_CONFIG_VALUE_0", Value: o.Workspace}}
	res := resources(o)
	c := corev1.Container{
		Name: Container, Image: o.Image, Command: command, WorkingDir: o.WorkDir,
		Env: append([]corev1.EnvVar{{Name: "XDG_STATE_HOME", Value: StateMount}}, gitSafe...),
		VolumeMounts: []corev1.VolumeMount{
			{Name: "checkout", MountPath: o.Workspace, ReadOnly: true, SubPath: o.Mirror.SubPath},
			{Name: "state", MountPath: StateMount},
			{Name: "spec", MountPath: SpecMount, ReadOnly: true},
		},
		Resources: res,
		// The report comes from the log; the termination message keeps the
		// last lines of a failed pod for `kube collect`'s refusal.
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		SecurityContext:          containerSecurity(o.Privileged),
	}
	var checkout corev1.VolumeSource
	var inits []corev1.Container
	switch m := o.Mirror; {
	case m.HostPath != "":
		// type Directory: a node without the mirror fails the pod instead
		// of mounting an empty directory.
		dir := corev1.HostPathDirectory
		checkout.HostPath = &corev1.HostPathVolumeSource{Path: m.HostPath, Type: &dir}
	case m.PVC != "":
		checkout.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: m.PVC, ReadOnly: true}
	default:
		checkout.EmptyDir = &corev1.EmptyDirVolumeSource{}
		inits = []corev1.Container{{
			Name: MirrorContainer, Image: o.Image,
			Command:      []string{"/bin/sh", "-c", mirrorScript, "shadow-mirror", m.Git, m.Commit, o.Workspace},
			Env:          gitSafe,
			VolumeMounts: []corev1.VolumeMount{{Name: "checkout", MountPath: o.Workspace}},
			// Guaranteed QoS needs every container, init ones too, to
			// request what it is limited to.
			Resources:                res,
			TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			SecurityContext:          containerSecurity(false),
		}}
	}
	var pullSecrets []corev1.LocalObjectReference
	for _, name := range o.ImagePullSecrets {
		pullSecrets = append(pullSecrets, corev1.LocalObjectReference{Name: name})
	}
	noToken := false
	pod := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{
			// Never: a failed pod is replaced by a new one, which the pod
			// failure policy and backoffLimitPerIndex require.
			RestartPolicy:      corev1.RestartPolicyNever,
			NodeSelector:       o.NodeSelector,
			Tolerations:        o.Tolerations,
			ServiceAccountName: o.ServiceAccount,
			ImagePullSecrets:   pullSecrets,
			// The pods never talk to the API: no token in them for a
			// hypothesis to find.
			AutomountServiceAccountToken: &noToken,
			SecurityContext:              podSecurity(o.Privileged),
			InitContainers:               inits,
			Containers:                   []corev1.Container{c},
			Volumes: []corev1.Volume{
				{Name: "checkout", VolumeSource: checkout},
				{Name: "state", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "spec", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}},
			},
		},
	}
	n := int32(o.Shards)
	indexed := batchv1.IndexedCompletion
	backoff, ttl := o.BackoffLimitPerIndex, o.TTL
	name, mirrorName := Container, MirrorContainer
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
	if len(inits) > 0 {
		// The git mirror's init container: a commit the repository lacks
		// fails the Job; anything else counts (another try). The API
		// refuses a rule naming a container the pod does not have.
		p := job.Spec.PodFailurePolicy
		p.Rules = append(p.Rules, batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionFailJob,
			OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
				ContainerName: &mirrorName, Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{exitRefused}}})
	}
	return job, cm
}

// resources are each container's requests, equal to its limits: with
// both CPU and memory given, the pod is in the Guaranteed QoS class
// (https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/), the last
// a node under memory pressure evicts, and the shard's -j matches the CPUs
// it is given.
func resources(o Options) corev1.ResourceRequirements {
	list := corev1.ResourceList{}
	if o.CPUs > 0 {
		list[corev1.ResourceCPU] = resource.MustParse(strconv.Itoa(o.CPUs))
	}
	if o.Memory != "" {
		if q, err := resource.ParseQuantity(o.Memory); err == nil {
			list[corev1.ResourceMemory] = q
		}
	}
	if len(list) == 0 {
		return corev1.ResourceRequirements{}
	}
	return corev1.ResourceRequirements{Requests: list, Limits: list.DeepCopy()}
}

// podSecurity and containerSecurity are the pods' security contexts. By
// default they pass Pod Security's baseline level and most of restricted
// (https://kubernetes.io/docs/concepts/security/pod-security-standards/):
// the runtime's default seccomp profile, no privilege escalation, every
// capability dropped. shadow then runs its hypotheses in copy mode sealed
// with Landlock (the default profiles of containerd and Docker forbid the
// user namespaces overlay mode makes; --mode auto picks copy mode, and
// Landlock needs neither privileges nor capabilities). --privileged asks
// for overlay mode's namespaces instead: a privileged container, which
// only a namespace at the privileged level admits.
func podSecurity(privileged bool) *corev1.PodSecurityContext {
	if privileged {
		return nil
	}
	return &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
}

func containerSecurity(privileged bool) *corev1.SecurityContext {
	t, f := true, false
	if privileged {
		return &corev1.SecurityContext{Privileged: &t}
	}
	return &corev1.SecurityContext{AllowPrivilegeEscalation: &f,
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
}

// ParseTolerations reads --toleration values, KEY[=VALUE][:EFFECT] as
// kubectl taint writes a taint: with a value the toleration matches it
// (Equal), without one any value (Exists); without an effect, every effect.
func ParseTolerations(vals []string) ([]corev1.Toleration, error) {
	var out []corev1.Toleration
	for _, v := range vals {
		kv, effect, _ := strings.Cut(v, ":")
		k, val, hasVal := strings.Cut(kv, "=")
		t := corev1.Toleration{Key: k, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffect(effect)}
		if hasVal {
			t.Operator, t.Value = corev1.TolerationOpEqual, val
		}
		switch t.Effect {
		case "", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			return nil, fmt.Errorf("--toleration %q: the effect is NoSchedule, PreferNoSchedule or NoExecute", v)
		}
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			return nil, fmt.Errorf("--toleration %q: want KEY[=VALUE][:EFFECT]: %s", v, strings.Join(msgs, "; "))
		}
		if msgs := validation.IsValidLabelValue(val); hasVal && len(msgs) > 0 {
			return nil, fmt.Errorf("--toleration %q: %s", v, strings.Join(msgs, "; "))
		}
		out = append(out, t)
	}
	return out, nil
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
