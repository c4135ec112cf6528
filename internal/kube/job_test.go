package kube

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func opts() Options {
	return Options{
		Name: "shadow-x", Namespace: "ci", Image: "reg/shadow:1", Shards: 3,
		Workspace: "/src/proj", Mirror: Mirror{HostPath: "/mirrors/proj"}, WorkDir: "/src/proj/sub",
		Spec: []byte(`{"hypotheses":[{"name":"a"}]}`), SpecName: "spec.json",
		RunArgs: []string{"--jobs=2"}, Command: []string{"go", "test", "./..."},
		BackoffLimitPerIndex: 2, TTL: 600,
	}
}

// The Job is what docs/kube.md says: Indexed, one pod per shard at once,
// per-index retries, exit 2 fails the Job, 130 and disruptions are not
// counted, 3 is; the pods never restart in place (the policy needs it).
func TestBuildIsAnIndexedJobWithThePolicy(t *testing.T) {
	job, cm := Build(opts())
	s := job.Spec
	if *s.CompletionMode != batchv1.IndexedCompletion || *s.Completions != 3 || *s.Parallelism != 3 {
		t.Errorf("completion mode %v, completions %d, parallelism %d", *s.CompletionMode, *s.Completions, *s.Parallelism)
	}
	if *s.BackoffLimitPerIndex != 2 || *s.TTLSecondsAfterFinished != 600 {
		t.Errorf("backoffLimitPerIndex %d, ttl %d", *s.BackoffLimitPerIndex, *s.TTLSecondsAfterFinished)
	}
	if s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %s: the pod failure policy needs Never", s.Template.Spec.RestartPolicy)
	}
	action := map[int32]batchv1.PodFailurePolicyAction{}
	disruption := false
	for _, r := range s.PodFailurePolicy.Rules {
		if r.OnExitCodes != nil && *r.OnExitCodes.ContainerName != MirrorContainer {
			if *r.OnExitCodes.ContainerName != Container || r.OnExitCodes.Operator != batchv1.PodFailurePolicyOnExitCodesOpIn {
				t.Errorf("rule %+v", r)
			}
			for _, v := range r.OnExitCodes.Values {
				action[v] = r.Action
			}
		}
		for _, c := range r.OnPodConditions {
			disruption = disruption || c.Type == corev1.DisruptionTarget && r.Action == batchv1.PodFailurePolicyActionIgnore
		}
	}
	want := map[int32]batchv1.PodFailurePolicyAction{2: batchv1.PodFailurePolicyActionFailJob, 3: batchv1.PodFailurePolicyActionCount, 130: batchv1.PodFailurePolicyActionIgnore}
	for code, a := range want {
		if action[code] != a {
			t.Errorf("exit %d: %q, want %q", code, action[code], a)
		}
	}
	if action[1] != "" || action[0] != "" {
		t.Errorf("exit 0 or 1 has a rule: the wrapper makes both success")
	}
	if !disruption {
		t.Error("a disrupted pod (DisruptionTarget) is not ignored")
	}

	c := s.Template.Spec.Containers[0]
	argv := strings.Join(c.Command, " ")
	for _, w := range []string{"--headless --events", "--shard-index-env=JOB_COMPLETION_INDEX", "--shard=/3", "-C /src/proj", "--jobs=2 - -- go test ./..."} {
		if !strings.Contains(argv, w) {
			t.Errorf("command %q lacks %q", argv, w)
		}
	}
	if c.WorkingDir != "/src/proj/sub" {
		t.Errorf("workingDir %q", c.WorkingDir)
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m
	}
	if m := mounts["checkout"]; m.MountPath != "/src/proj" || !m.ReadOnly {
		t.Errorf("checkout mount %+v: want read-only at the checkout's path", m)
	}
	if m := mounts["state"]; m.MountPath != StateMount || m.ReadOnly {
		t.Errorf("state mount %+v", m)
	}
	vols := map[string]corev1.Volume{}
	for _, v := range s.Template.Spec.Volumes {
		vols[v.Name] = v
	}
	if hp := vols["checkout"].HostPath; hp == nil || hp.Path != "/mirrors/proj" || *hp.Type != corev1.HostPathDirectory {
		t.Errorf("checkout volume %+v: want the hostPath mirror", vols["checkout"])
	}
	if vols["state"].EmptyDir == nil {
		t.Errorf("state volume %+v: want an emptyDir", vols["state"])
	}
	if cv := vols["spec"].ConfigMap; cv == nil || cv.Name != cm.Name {
		t.Errorf("spec volume %+v, configmap %s", vols["spec"], cm.Name)
	}
	if cm.Data[SpecKey] != string(opts().Spec) {
		t.Errorf("configmap data %q", cm.Data)
	}
	if !slices.Contains(c.Env, corev1.EnvVar{Name: "XDG_STATE_HOME", Value: StateMount}) {
		t.Errorf("env %v: the state dir must be on the emptyDir", c.Env)
	}
}

func TestPrintedYAMLReadsBack(t *testing.T) {
	var b bytes.Buffer
	if err := WriteYAML(&b, opts()); err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(b.String(), "\n---\n")
	if len(docs) != 3 {
		t.Fatalf("want a comment, the ConfigMap and the Job: %d parts\n%s", len(docs), b.String())
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[2]), &job); err != nil {
		t.Fatal(err)
	}
	want, _ := Build(opts())
	if job.Kind != "Job" || *job.Spec.Completions != 3 || job.Spec.Template.Spec.Containers[0].Command[2] != want.Spec.Template.Spec.Containers[0].Command[2] {
		t.Errorf("read back %+v", job)
	}
}

func TestCheckRefuses(t *testing.T) {
	for name, mod := range map[string]func(*Options){
		"--name":       func(o *Options) { o.Name = "Shadow_X" },
		"--name ":      func(o *Options) { o.Name = strings.Repeat("a", 64) },
		"--namespace":  func(o *Options) { o.Namespace = "no way" },
		"--image":      func(o *Options) { o.Image = "" },
		"--shards":     func(o *Options) { o.Shards = 0 },
		"--mirror":     func(o *Options) { o.Mirror = Mirror{HostPath: "rel/path"} },
		"give one":     func(o *Options) { o.Mirror.PVC = "claim" },
		"no mirror":    func(o *Options) { o.Mirror = Mirror{} },
		"--mirror-pvc": func(o *Options) { o.Mirror = Mirror{PVC: "claim", SubPath: "../up"} },
		"commit first": func(o *Options) { o.Mirror = Mirror{Git: "https://git.example/p.git"} },
		"--pod-memory": func(o *Options) { o.Memory = "lots" },
		"--cpus":       func(o *Options) { o.CPUs = -1 },
		"--service-ac": func(o *Options) { o.ServiceAccount = "Not_A_Name" },
		"--image-pull": func(o *Options) { o.ImagePullSecrets = []string{"a b"} },
		"--node-sel":   func(o *Options) { o.NodeSelector = map[string]string{"a b": "c"} },
		"--backoff-li": func(o *Options) { o.BackoffLimitPerIndex = -1 },
	} {
		o := opts()
		mod(&o)
		err := o.Check()
		if err == nil || !strings.Contains(err.Error(), strings.TrimSpace(name)) {
			t.Errorf("%s: %v", name, err)
		}
	}
	o := opts()
	if err := o.Check(); err != nil {
		t.Errorf("good options refused: %v", err)
	}
}

func TestDefaultNameIsOneRun(t *testing.T) {
	a := DefaultName([]byte("spec"), []string{"go", "test"}, 4, "abc")
	if a != DefaultName([]byte("spec"), []string{"go", "test"}, 4, "abc") {
		t.Error("not stable")
	}
	for _, b := range []string{
		DefaultName([]byte("spec2"), []string{"go", "test"}, 4, "abc"),
		DefaultName([]byte("spec"), []string{"go", "vet"}, 4, "abc"),
		DefaultName([]byte("spec"), []string{"go", "test"}, 3, "abc"),
		DefaultName([]byte("spec"), []string{"go", "test"}, 4, "abd"),
	} {
		if a == b {
			t.Errorf("another run, same name %s", a)
		}
	}
	o := opts()
	o.Name = a
	if err := o.Check(); err != nil {
		t.Errorf("default name %s refused: %v", a, err)
	}
}

func TestParseSelector(t *testing.T) {
	m, err := ParseSelector([]string{"a=1,b=2", "c="})
	if err != nil || m["a"] != "1" || m["b"] != "2" || m["c"] != "" || len(m) != 3 {
		t.Errorf("%v %v", m, err)
	}
	if _, err := ParseSelector([]string{"novalue"}); err == nil {
		t.Error("KEY without = accepted")
	}
}

// A container's log holds stderr too: the report is the run_finished
// event among other lines; a stream cut before it is no report.
func TestReportFromLog(t *testing.T) {
	log := "shadow: overlay mode\n" +
		`{"schema":"shadow.event/v1","seq":1,"run":"r1","kind":"run_started"}` + "\n" +
		"{not json at all\n" +
		`{"schema":"other","run":"r1","kind":"run_finished","report":{"schema":"x"}}` + "\n" +
		// A command that reached the log forges a report: shadow's own,
		// written last, stands; one of another run does not count.
		`{"schema":"shadow.event/v1","seq":9,"run":"r1","kind":"run_finished","report":{"schema":"shadow.report/v1","workspace":"/forged"}}` + "\n" +
		`{"schema":"shadow.event/v1","seq":2,"run":"r1","kind":"run_finished","report":{"schema":"shadow.report/v1","workspace":"/w"}}` + "\n" +
		`{"schema":"shadow.event/v1","seq":3,"run":"r2","kind":"run_finished","report":{"schema":"shadow.report/v1","workspace":"/other"}}` + "\n" +
		"done\n"
	rep, err := ReportFromLog([]byte(log))
	if err != nil || rep.Workspace != "/w" {
		t.Fatalf("%+v %v", rep, err)
	}
	if _, err := ReportFromLog([]byte(`{"schema":"shadow.event/v1","seq":1,"kind":"run_started"}` + "\n")); err == nil || !strings.Contains(err.Error(), "before run_finished") {
		t.Errorf("cut stream: %v", err)
	}
	if _, err := ReportFromLog([]byte("panic: oops\n")); err == nil || !strings.Contains(err.Error(), "no shadow event") {
		t.Errorf("no events: %v", err)
	}
}

// The wrapper as a pod runs it: 0 and 1 (the shard ran) become 0, the
// rest stay; the spec reaches shadow on stdin; a SIGTERM to the wrapper
// (PID 1 in the pod: the kubelet's stop) reaches shadow, whose 130 is
// the pod's.
func TestWrapperExitCodes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a POSIX sh")
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte("THE SPEC"), 0o644)
	script := strings.Replace(wrapper, SpecMount+"/"+SpecKey, spec, 1)
	for in, want := range map[int]int{0: 0, 1: 0, 2: 2, 3: 3, 130: 130} {
		cmd := exec.Command("/bin/sh", "-c", script, "shadow-shard", "/bin/sh", "-c", `read l; [ "$l" = "THE SPEC" ] || exit 99; exit `+strconv.Itoa(in))
		err := cmd.Run()
		got := 0
		if ee, ok := err.(*exec.ExitError); ok {
			got = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("shadow exit %d: pod exit %d, want %d", in, got, want)
		}
	}
	outPath := filepath.Join(dir, "out")
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command("/bin/sh", "-c", script, "shadow-shard", "/bin/sh", "-c", `trap 'echo got TERM; exit 130' TERM; echo ready; while :; do sleep 0.05; done`)
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	read := func() string { b, _ := os.ReadFile(outPath); return string(b) }
	for i := 0; i < 200 && !strings.Contains(read(), "ready"); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 || !strings.Contains(read(), "got TERM") {
		t.Errorf("SIGTERM: %v, output %q: want shadow's 130", err, read())
	}
}

// By default the pods pass Pod Security's baseline level (and restricted's
// seccomp, escalation and capability rules): no hostPath, no privilege,
// the runtime's seccomp profile, every capability dropped, no API token;
// their requests equal their limits (Guaranteed QoS), the git mirror's
// init container's too. The e2e test (test/kube) has an API server that
// enforces baseline admit it and refuse the hostPath one.
func TestBuildPassesBaselineByDefault(t *testing.T) {
	o := opts()
	o.Mirror = Mirror{Git: "https://git.example/proj.git", Commit: "0123456789abcdef0123456789abcdef01234567"}
	o.CPUs, o.Memory = 2, "3Gi"
	o.ServiceAccount, o.ImagePullSecrets = "shadow-runner", []string{"regcred"}
	var err error
	if o.Tolerations, err = ParseTolerations([]string{"dedicated=ci:NoSchedule", "spot"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	job, _ := Build(o)
	ps := job.Spec.Template.Spec
	if ps.SecurityContext == nil || ps.SecurityContext.SeccompProfile == nil || ps.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod securityContext %+v: want the RuntimeDefault seccomp profile", ps.SecurityContext)
	}
	if ps.AutomountServiceAccountToken == nil || *ps.AutomountServiceAccountToken {
		t.Error("the pods get an API token they never use")
	}
	if ps.ServiceAccountName != "shadow-runner" || len(ps.ImagePullSecrets) != 1 || ps.ImagePullSecrets[0].Name != "regcred" {
		t.Errorf("serviceAccountName %q, imagePullSecrets %v", ps.ServiceAccountName, ps.ImagePullSecrets)
	}
	wantTol := []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "ci", Effect: corev1.TaintEffectNoSchedule},
		{Key: "spot", Operator: corev1.TolerationOpExists}}
	if !slices.Equal(ps.Tolerations, wantTol) {
		t.Errorf("tolerations %+v, want %+v", ps.Tolerations, wantTol)
	}
	for _, v := range ps.Volumes {
		if v.HostPath != nil {
			t.Errorf("volume %s is a hostPath", v.Name)
		}
	}
	if len(ps.InitContainers) != 1 || ps.InitContainers[0].Name != MirrorContainer {
		t.Fatalf("init containers %+v: want the git mirror", ps.InitContainers)
	}
	for _, c := range append(ps.InitContainers, ps.Containers...) {
		sc := c.SecurityContext
		if sc == nil || sc.Privileged != nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0 {
			t.Errorf("container %s securityContext %+v", c.Name, sc)
		}
		r := c.Resources
		if r.Requests.Cpu().String() != "2" || r.Requests.Memory().String() != "3Gi" ||
			r.Limits.Cpu().Cmp(*r.Requests.Cpu()) != 0 || r.Limits.Memory().Cmp(*r.Requests.Memory()) != 0 {
			t.Errorf("container %s resources %+v: want requests = limits = 2 CPUs, 3Gi", c.Name, r)
		}
	}
	m := ps.Containers[0].VolumeMounts[0]
	if m.Name != "checkout" || !m.ReadOnly || m.MountPath != o.Workspace {
		t.Errorf("the checkout mount %+v", m)
	}
	im := ps.InitContainers[0].VolumeMounts[0]
	if im.Name != "checkout" || im.ReadOnly || im.MountPath != o.Workspace {
		t.Errorf("the mirror's mount %+v: the init container writes the checkout", im)
	}
	var fails bool
	for _, r := range job.Spec.PodFailurePolicy.Rules {
		if r.OnExitCodes != nil && *r.OnExitCodes.ContainerName == MirrorContainer {
			fails = r.Action == batchv1.PodFailurePolicyActionFailJob && slices.Equal(r.OnExitCodes.Values, []int32{2})
		}
	}
	if !fails {
		t.Error("a commit the repository lacks (the mirror's exit 2) does not fail the Job")
	}

	// --privileged: overlay mode's namespaces, not baseline.
	o.Privileged = true
	job, _ = Build(o)
	if sc := job.Spec.Template.Spec.Containers[0].SecurityContext; sc == nil || sc.Privileged == nil || !*sc.Privileged {
		t.Errorf("--privileged: securityContext %+v", sc)
	}
	// --mirror-pvc: the claim, read-only, at its path in the claim.
	o = opts()
	o.Mirror = Mirror{PVC: "proj-mirror", SubPath: "proj"}
	job, _ = Build(o)
	ps = job.Spec.Template.Spec
	if pv := ps.Volumes[0].PersistentVolumeClaim; pv == nil || pv.ClaimName != "proj-mirror" || !pv.ReadOnly || len(ps.InitContainers) != 0 {
		t.Errorf("--mirror-pvc: volume %+v", ps.Volumes[0])
	}
	if m := ps.Containers[0].VolumeMounts[0]; m.SubPath != "proj" || !m.ReadOnly {
		t.Errorf("--mirror-pvc: mount %+v", m)
	}
	// No --cpus, no memory: no requests (BestEffort), said so in docs.
	o.CPUs, o.Memory = 0, ""
	job, _ = Build(o)
	if r := job.Spec.Template.Spec.Containers[0].Resources; len(r.Requests)+len(r.Limits) != 0 {
		t.Errorf("no --cpus, no --pod-memory: resources %+v", r)
	}
}

func TestParseTolerationsRefuses(t *testing.T) {
	for _, v := range []string{"a:Sometimes", "=v", "a b", "k=v v:NoExecute"} {
		if _, err := ParseTolerations([]string{v}); err == nil {
			t.Errorf("%q accepted", v)
		}
	}
}

// The git mirror's init container, run for real: it fetches the commit
// with the history and the branches (--ref hypotheses name them), exits 2
// for a commit the repository lacks (not pushed: the policy fails the
// Job) and 3 for a repository it cannot read (another try may do).
func TestMirrorScriptFetchesTheCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	git := func(d string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", d, "-c", "user.email=t@shadow", "-c", "user.name=t"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	os.MkdirAll(repo, 0o755)
	git(repo, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "f"), []byte("one\n"), 0o644)
	git(repo, "add", ".")
	git(repo, "commit", "-qm", "one")
	first := git(repo, "rev-parse", "HEAD")
	git(repo, "checkout", "-qb", "feature")
	os.WriteFile(filepath.Join(repo, "f"), []byte("two\n"), 0o644)
	git(repo, "commit", "-qam", "two")
	git(repo, "checkout", "-q", "main")

	mirror := func(commit string) (string, int) {
		ws := filepath.Join(t.TempDir(), "ws")
		os.MkdirAll(ws, 0o755) // the emptyDir, as the kubelet makes it
		job, _ := Build(Options{Name: "x", Image: "i", Shards: 1, Workspace: ws, Mirror: Mirror{Git: repo, Commit: commit}})
		c := job.Spec.Template.Spec.InitContainers[0]
		cmd := exec.Command(c.Command[0], c.Command[1:]...)
		for _, e := range c.Env {
			cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
		}
		cmd.Env = append(cmd.Env, "PATH="+os.Getenv("PATH"), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code == 0 {
			if got := git(ws, "rev-parse", "HEAD"); got != commit {
				t.Errorf("the mirror is at %s, want %s", got, commit)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "f")); string(b) != "one\n" {
				t.Errorf("the mirror's file %q", b)
			}
			if got := git(ws, "rev-parse", "feature"); got == "" {
				t.Error("the branch feature is not in the mirror")
			}
		}
		return string(out), code
	}
	if out, code := mirror(first); code != 0 {
		t.Errorf("mirror of a pushed commit: exit %d\n%s", code, out)
	}
	if out, code := mirror(strings.Repeat("1", 40)); code != 2 || !strings.Contains(out, "push it") {
		t.Errorf("a commit the repository lacks: exit %d, want 2 saying to push it\n%s", code, out)
	}
	repo = filepath.Join(dir, "nonexistent")
	if out, code := mirror(first); code != 3 {
		t.Errorf("a repository that cannot be read: exit %d, want 3\n%s", code, out)
	}
}
