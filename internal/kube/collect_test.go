package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/shadow-dev/shadow/internal/run"
)

// fakeAPI answers the few calls collect makes, as kube-apiserver does
// (the e2e test in test/kube runs the real one, but without a kubelet, so
// the pod log API is only exercised here).
type fakeAPI struct {
	mu      sync.Mutex
	job     *batchv1.Job
	pods    []corev1.Pod
	logs    map[string]string
	forbid  bool
	logReqs []string
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	status := func(code int, reason metav1.StatusReason, msg string, details *metav1.StatusDetails) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status: "Failure", Code: int32(code), Reason: reason, Message: msg, Details: details})
	}
	if f.forbid {
		status(403, metav1.StatusReasonForbidden, `jobs.batch "j" is forbidden: User "u" cannot get resource "jobs"`, &metav1.StatusDetails{Name: "j", Group: "batch", Kind: "jobs"})
		return
	}
	obj := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	switch p := r.URL.Path; {
	case p == "/apis/batch/v1/namespaces/ns/jobs/j":
		if f.job == nil {
			status(404, metav1.StatusReasonNotFound, `jobs.batch "j" not found`, &metav1.StatusDetails{Name: "j", Group: "batch", Kind: "jobs"})
			return
		}
		j := f.job.DeepCopy()
		j.APIVersion, j.Kind = "batch/v1", "Job"
		obj(j)
	case p == "/api/v1/namespaces/ns/pods":
		if r.URL.Query().Get("labelSelector") != LabelJobName+"=j" {
			status(400, metav1.StatusReasonBadRequest, "selector "+r.URL.RawQuery, nil)
			return
		}
		obj(corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, Items: f.pods})
	case strings.HasSuffix(p, "/log"):
		name := strings.TrimSuffix(strings.TrimPrefix(p, "/api/v1/namespaces/ns/pods/"), "/log")
		f.logReqs = append(f.logReqs, name+"?"+r.URL.RawQuery)
		w.Write([]byte(f.logs[name]))
	default:
		status(404, metav1.StatusReasonNotFound, "no "+p, nil)
	}
}

func fakeCluster(t *testing.T, f *fakeAPI) *Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	os.WriteFile(kc, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u, namespace: ns}}]
current-context: c
`, srv.URL)), 0o600)
	c, err := Connect(kc, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Namespace != "ns" {
		t.Fatalf("namespace %q: the context's is ns", c.Namespace)
	}
	return c
}

func indexedJob(shards int32, cond batchv1.JobConditionType, reason, msg string) *batchv1.Job {
	mode := batchv1.IndexedCompletion
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", Annotations: map[string]string{AnnoShards: fmt.Sprint(shards)}},
		Spec: batchv1.JobSpec{CompletionMode: &mode, Completions: &shards}}
	if cond != "" {
		j.Status.Conditions = []batchv1.JobCondition{{Type: cond, Status: corev1.ConditionTrue, Reason: reason, Message: msg}}
	}
	return j
}

func pod(name string, index int, phase corev1.PodPhase, exit int32, msg string) corev1.Pod {
	p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns",
		Labels: map[string]string{LabelJobName: "j", LabelIndex: fmt.Sprint(index)}},
		Status: corev1.PodStatus{Phase: phase}}
	if phase == corev1.PodFailed || phase == corev1.PodSucceeded {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: Container,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, Message: msg}}}}
	}
	return p
}

func eventLog(index int) string {
	return "shadow: a progress line on stderr\n" +
		`{"schema":"shadow.event/v1","seq":1,"kind":"run_started"}` + "\n" +
		`{"schema":"shadow.event/v1","seq":2,"kind":"hyp_finished","hyp":"fix","result":{"name":"fix","status":"passed"}}` + "\n" +
		fmt.Sprintf(`{"schema":"shadow.event/v1","seq":2,"kind":"run_finished","report":{"schema":"shadow.report/v1","workspace":"/w%d"}}`, index) + "\n"
}

func TestCollectReadsEachIndexFromTheLogAPI(t *testing.T) {
	f := &fakeAPI{job: indexedJob(2, batchv1.JobComplete, "CompletionsReached", ""),
		pods: []corev1.Pod{
			pod("j-1-b", 1, corev1.PodSucceeded, 0, ""),
			pod("j-0-a", 0, corev1.PodFailed, 3, "no user namespaces"), // the retried first try of index 0
			pod("j-0-c", 0, corev1.PodSucceeded, 0, ""),
		},
		logs: map[string]string{"j-0-c": eventLog(0), "j-1-b": eventLog(1), "j-0-a": "not this one"}}
	c := fakeCluster(t, f)
	shards, err := c.Collect(context.Background(), CollectOptions{Job: "j", Poll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(shards) != 2 || shards[0].Pod != "j-0-c" || shards[0].Report.Workspace != "/w0" || shards[1].Pod != "j-1-b" || shards[1].Report.Workspace != "/w1" {
		t.Fatalf("%+v", shards)
	}
	for _, r := range f.logReqs {
		if !strings.Contains(r, "container=shadow") || strings.HasPrefix(r, "j-0-a") {
			t.Errorf("log request %s", r)
		}
	}
}

func TestCollectRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		f    *fakeAPI
		code int
		want []string
	}{
		"failed job": {&fakeAPI{job: func() *batchv1.Job {
			j := indexedJob(2, batchv1.JobFailed, "PodFailurePolicy", "Container shadow for pod ns/j-0-a failed with exit code 2 matching FailJob rule at index 0")
			fi := "0"
			j.Status.FailedIndexes = &fi
			return j
		}(), pods: []corev1.Pod{pod("j-0-a", 0, corev1.PodFailed, 2, "line 1\nshadow: spec: edits[0].file: cannot read /x")}},
			2, []string{"job j failed (PodFailurePolicy", "failed indexes 0", "shard 0, pod j-0-a: exit 2", "cannot read /x"}},
		"missing index": {&fakeAPI{job: indexedJob(2, batchv1.JobComplete, "", ""), pods: []corev1.Pod{pod("j-0-a", 0, corev1.PodSucceeded, 0, "")},
			logs: map[string]string{"j-0-a": eventLog(0)}}, 2, []string{"shard 1 of 2 has no pod left"}},
		"no report in the log": {&fakeAPI{job: indexedJob(1, batchv1.JobComplete, "", ""), pods: []corev1.Pod{pod("j-0-a", 0, corev1.PodSucceeded, 0, "")},
			logs: map[string]string{"j-0-a": `{"schema":"shadow.event/v1","kind":"run_started"}` + "\n"}}, 2, []string{"shard 0 (pod j-0-a)", "before run_finished"}},
		"no job":    {&fakeAPI{}, 2, []string{"no job j in namespace ns"}},
		"forbidden": {&fakeAPI{forbid: true}, 3, []string{"forbidden", "RBAC"}},
	} {
		c := fakeCluster(t, tc.f)
		_, err := c.Collect(context.Background(), CollectOptions{Job: "j", Poll: 10 * time.Millisecond})
		var re *run.Error
		if !errors.As(err, &re) || re.Code != tc.code {
			t.Errorf("%s: %v, want exit %d", name, err, tc.code)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", name, err, w)
			}
		}
	}
}

// A Job still running is waited for: collect returns once it completes.
func TestCollectWaitsForTheJob(t *testing.T) {
	f := &fakeAPI{job: indexedJob(1, "", "", ""), pods: []corev1.Pod{pod("j-0-a", 0, corev1.PodRunning, 0, "")},
		logs: map[string]string{"j-0-a": eventLog(0)}}
	c := fakeCluster(t, f)
	go func() {
		time.Sleep(200 * time.Millisecond)
		f.mu.Lock()
		f.pods[0] = pod("j-0-a", 0, corev1.PodSucceeded, 0, "")
		f.job = indexedJob(1, batchv1.JobComplete, "", "")
		f.mu.Unlock()
	}()
	var progress strings.Builder
	var mu sync.Mutex
	shards, err := c.Collect(context.Background(), CollectOptions{Job: "j", Poll: 20 * time.Millisecond, Progress: writerFunc(func(b []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return progress.Write(b)
	})})
	if err != nil || len(shards) != 1 {
		t.Fatalf("%v %v", shards, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(progress.String(), "shard 0: fix passed") {
		t.Errorf("the running pod's log was not followed: progress %q", progress.String())
	}
	f.mu.Lock()
	followed := strings.Join(f.logReqs, " ")
	f.mu.Unlock()
	if !strings.Contains(followed, "follow=true") {
		t.Errorf("log requests %s: none follows", followed)
	}
	if !strings.Contains(progress.String(), "shard 0 of 1 collected (pod j-0-a)") {
		t.Errorf("progress %q", progress.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// apply's fake: records the calls; jobCreate decides the Job's fate.
type applyAPI struct {
	mu        sync.Mutex
	calls     []string
	cm        *corev1.ConfigMap
	jobStatus int
}

func (f *applyAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	w.Header().Set("Content-Type", "application/json")
	fail := func(code int, reason metav1.StatusReason, details *metav1.StatusDetails) {
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Code: int32(code), Reason: reason, Message: string(reason), Details: details})
	}
	switch {
	case r.Method == "POST" && r.URL.Path == "/api/v1/namespaces/ns/configmaps":
		var cm corev1.ConfigMap
		json.NewDecoder(r.Body).Decode(&cm)
		f.cm = &cm
		w.WriteHeader(201)
		json.NewEncoder(w).Encode(cm)
	case r.Method == "POST" && r.URL.Path == "/apis/batch/v1/namespaces/ns/jobs":
		if f.jobStatus != 0 {
			fail(f.jobStatus, metav1.StatusReasonForbidden, &metav1.StatusDetails{Kind: "jobs", Group: "batch"})
			return
		}
		var j batchv1.Job
		json.NewDecoder(r.Body).Decode(&j)
		j.UID = "job-uid"
		w.WriteHeader(201)
		json.NewEncoder(w).Encode(j)
	case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/ns/configmaps/"):
		json.NewEncoder(w).Encode(f.cm)
	case r.Method == "PUT" && strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/ns/configmaps/"):
		var cm corev1.ConfigMap
		json.NewDecoder(r.Body).Decode(&cm)
		f.cm = &cm
		json.NewEncoder(w).Encode(cm)
	case r.Method == "DELETE":
		f.cm = nil
		json.NewEncoder(w).Encode(metav1.Status{Status: "Success"})
	default:
		fail(404, metav1.StatusReasonNotFound, nil)
	}
}

func applyCluster(t *testing.T, f http.Handler) *Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	os.WriteFile(kc, []byte(fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: %q}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n", srv.URL)), 0o600)
	c, err := Connect(kc, "", "ns")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The ConfigMap first, then the Job, then the Job made its owner; a Job
// the API refuses takes its ConfigMap back.
func TestApplyOrderAndOwner(t *testing.T) {
	f := &applyAPI{}
	c := applyCluster(t, f)
	if err := c.Apply(context.Background(), opts()); err != nil {
		t.Fatal(err)
	}
	want := "POST /api/v1/namespaces/ns/configmaps POST /apis/batch/v1/namespaces/ns/jobs GET /api/v1/namespaces/ns/configmaps/shadow-x-spec PUT /api/v1/namespaces/ns/configmaps/shadow-x-spec"
	if got := strings.Join(f.calls, " "); got != want {
		t.Errorf("calls\n %s\nwant\n %s", got, want)
	}
	if f.cm == nil || len(f.cm.OwnerReferences) != 1 || f.cm.OwnerReferences[0].UID != "job-uid" || f.cm.OwnerReferences[0].Kind != "Job" {
		t.Errorf("configmap owner %+v", f.cm)
	}

	f = &applyAPI{jobStatus: 403}
	c = applyCluster(t, f)
	err := c.Apply(context.Background(), opts())
	var re *run.Error
	if !errors.As(err, &re) || re.Code != 3 || !strings.Contains(re.Fix, "RBAC") {
		t.Errorf("forbidden job: %v", err)
	}
	if f.cm != nil || !strings.Contains(strings.Join(f.calls, " "), "DELETE /api/v1/namespaces/ns/configmaps/shadow-x-spec") {
		t.Errorf("the ConfigMap stays after the Job was refused: %v", f.calls)
	}
}
