package kube

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/shadow-dev/shadow/internal/run"
)

// Apply creates the spec's ConfigMap, then the Job, then makes the Job
// the ConfigMap's owner, so the garbage collector deletes it with the Job
// (when ttlSecondsAfterFinished runs out, or kubectl delete job). The
// ConfigMap comes first so no pod waits for a volume that is not there;
// if the Job cannot be made, the ConfigMap is deleted again.
func (c *Client) Apply(ctx context.Context, o Options) error {
	o.Namespace = c.Namespace
	job, cm := Build(o)
	if err := c.core.create(ctx, c.Namespace, "configmaps", cm, &corev1.ConfigMap{}); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return &run.Error{Code: run.ExitUsage, Msg: "kube job: configmap " + c.Namespace + "/" + cm.Name + " already exists",
				Reason: "this run (same spec, command, shards and commit) was created before, or --name is taken",
				Fix:    "collect it (shadow kube collect " + o.Name + "), delete it (kubectl delete job,configmap -l " + LabelRun + "=" + o.Name + "), or pass another --name"}
		}
		return c.apiErr("create configmap "+c.Namespace+"/"+cm.Name, err)
	}
	made := &batchv1.Job{}
	if err := c.batch.create(ctx, c.Namespace, "jobs", job, made); err != nil {
		_ = c.core.delete(context.WithoutCancel(ctx), c.Namespace, "configmaps", cm.Name)
		if apierrors.IsAlreadyExists(err) {
			return &run.Error{Code: run.ExitUsage, Msg: "kube job: job " + c.Namespace + "/" + o.Name + " already exists",
				Fix: "collect it (shadow kube collect " + o.Name + "), delete it, or pass another --name"}
		}
		return c.apiErr("create job "+c.Namespace+"/"+o.Name, err)
	}
	ctrl := false
	owner := metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: made.Name, UID: made.UID, Controller: &ctrl}
	cur := &corev1.ConfigMap{}
	err := c.core.get(ctx, c.Namespace, "configmaps", cm.Name, cur)
	if err == nil {
		cur.OwnerReferences = append(cur.OwnerReferences, owner)
		err = c.core.update(ctx, c.Namespace, "configmaps", cm.Name, cur, &corev1.ConfigMap{})
	}
	if err != nil {
		return c.apiErr("job "+made.Name+" is created, but its configmap "+cm.Name+" could not be given to it (delete the configmap yourself when done)", err)
	}
	return nil
}
