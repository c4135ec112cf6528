package kube

import (
	"context"
	"io"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

// The typed clients of client-go (kubernetes/typed/batch/v1 and core/v1)
// serialize through k8s.io/client-go/kubernetes/scheme, which registers
// every API group: importing them links all 56 k8s.io/api packages into
// shadow (a 49.6 MB shadow, against 33.1 MB this way and 22.2 MB
// before kube; docs/kube.md "Cost"). The
// few calls shadow makes go through a REST client whose scheme knows
// batch/v1 and core/v1 only.
var (
	scheme = runtime.NewScheme()
	codecs = serializer.NewCodecFactory(scheme)
	params = runtime.NewParameterCodec(scheme)
)

func init() {
	// Each registers its group's types and the list/get/delete options
	// (metav1.AddToGroupVersion) for the query parameters.
	if err := corev1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := batchv1.AddToScheme(scheme); err != nil {
		panic(err)
	}
}

// api is one group-version's REST client.
type api struct{ rc rest.Interface }

func newAPI(cfg *rest.Config, gv schema.GroupVersion, path string) (api, error) {
	c := rest.CopyConfig(cfg)
	c.GroupVersion, c.APIPath = &gv, path
	c.NegotiatedSerializer = codecs.WithoutConversion()
	rc, err := rest.RESTClientFor(c)
	return api{rc}, err
}

func (a api) get(ctx context.Context, ns, resource, name string, into runtime.Object) error {
	return a.rc.Get().Namespace(ns).Resource(resource).Name(name).
		VersionedParams(&metav1.GetOptions{}, params).Do(ctx).Into(into)
}

func (a api) create(ctx context.Context, ns, resource string, obj, into runtime.Object) error {
	return a.rc.Post().Namespace(ns).Resource(resource).
		VersionedParams(&metav1.CreateOptions{}, params).Body(obj).Do(ctx).Into(into)
}

func (a api) update(ctx context.Context, ns, resource, name string, obj, into runtime.Object) error {
	return a.rc.Put().Namespace(ns).Resource(resource).Name(name).
		VersionedParams(&metav1.UpdateOptions{}, params).Body(obj).Do(ctx).Into(into)
}

func (a api) delete(ctx context.Context, ns, resource, name string) error {
	return a.rc.Delete().Namespace(ns).Resource(resource).Name(name).
		Body(&metav1.DeleteOptions{}).Do(ctx).Error()
}

func (a api) list(ctx context.Context, ns, resource, selector string, into runtime.Object) error {
	return a.rc.Get().Namespace(ns).Resource(resource).
		VersionedParams(&metav1.ListOptions{LabelSelector: selector}, params).Do(ctx).Into(into)
}

// logs streams a pod's log (pods/log).
func (a api) logs(ctx context.Context, ns, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	return a.rc.Get().Namespace(ns).Resource("pods").Name(pod).SubResource("log").
		VersionedParams(opts, params).Stream(ctx)
}
