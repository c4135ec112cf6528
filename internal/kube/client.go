package kube

import (
	"errors"
	"fmt"
	"net"
	"net/url"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/shadow-dev/shadow/internal/run"
)

// Client reaches the two API groups shadow needs: batch/v1 for the Job,
// core/v1 for its ConfigMap, pods and logs (rest.go says why not through
// client-go's typed clients).
type Client struct {
	batch, core api
	Namespace   string
	Host        string
}

// Connect loads the configuration as kubectl does (client-go's default
// loading rules): --kubeconfig if given, else $KUBECONFIG, else
// ~/.kube/config, else the pod's service account when running in a
// cluster. namespace "" takes the context's (or the service account's),
// else "default".
func Connect(kubeconfig, kubecontext, namespace string) (*Client, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		rules.ExplicitPath = kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: kubecontext})
	cfg, err := cc.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, &run.Error{Code: run.ExitEnv, Msg: "kube: no cluster configured",
				Reason: "no --kubeconfig, no $KUBECONFIG, no ~/.kube/config, and not in a pod",
				Fix:    "pass --kubeconfig FILE or set KUBECONFIG (or print the Job without --apply and create it with kubectl)"}
		}
		return nil, &run.Error{Code: run.ExitEnv, Msg: "kube: cannot load the client configuration", Reason: err.Error(),
			Fix: "check --kubeconfig, $KUBECONFIG and --context"}
	}
	if namespace == "" {
		if namespace, _, err = cc.Namespace(); err != nil || namespace == "" {
			namespace = "default"
		}
	}
	cfg.UserAgent = "shadow (" + rest.DefaultKubernetesUserAgent() + ")"
	b, err := newAPI(cfg, batchv1.SchemeGroupVersion, "/apis")
	if err != nil {
		return nil, &run.Error{Code: run.ExitEnv, Msg: "kube: client configuration", Reason: err.Error()}
	}
	c, err := newAPI(cfg, corev1.SchemeGroupVersion, "/api")
	if err != nil {
		return nil, &run.Error{Code: run.ExitEnv, Msg: "kube: client configuration", Reason: err.Error()}
	}
	return &Client{batch: b, core: c, Namespace: namespace, Host: cfg.Host}, nil
}

// apiErr says what failed in words a user acts on: which verb on which
// resource, why, and the fix (RBAC, the namespace, the server's address).
func (c *Client) apiErr(what string, err error) error {
	var re *run.Error
	if errors.As(err, &re) {
		return err
	}
	e := &run.Error{Code: run.ExitEnv, Msg: "kube: " + what, Reason: err.Error()}
	var ue *url.Error
	var ne net.Error
	switch {
	case apierrors.IsForbidden(err):
		e.Fix = fmt.Sprintf("your account may not do this in namespace %q: grant the Role in docs/kube.md (RBAC), or pick another --namespace", c.Namespace)
	case apierrors.IsUnauthorized(err):
		e.Fix = "the API server at " + c.Host + " does not accept your credentials: refresh them (kubectl get pods says the same)"
	case apierrors.IsNotFound(err) && isNamespaceMissing(err, c.Namespace):
		e.Fix = fmt.Sprintf("namespace %q does not exist: create it (kubectl create namespace %s) or pass --namespace", c.Namespace, c.Namespace)
	case errors.As(err, &ue) || errors.As(err, &ne):
		e.Fix = "cannot reach the API server at " + c.Host + ": check the cluster is up and --kubeconfig/--context name it"
	}
	return e
}

// isNamespaceMissing tells a NotFound about the namespace (a create in a
// namespace that does not exist) from one about the object itself.
func isNamespaceMissing(err error, ns string) bool {
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return false
	}
	d := se.Status().Details
	return d != nil && d.Kind == "namespaces" && d.Name == ns
}
