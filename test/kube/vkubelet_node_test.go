//go:build linux

package kube

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	vknode "github.com/virtual-kubelet/virtual-kubelet/node"
	"github.com/virtual-kubelet/virtual-kubelet/node/nodeutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// apiserverKubeletUser is the name in the client certificate the API
// server presents to kubelets (--kubelet-client-certificate).
const apiserverKubeletUser = "kube-apiserver-kubelet-client"

// startVirtualNode registers a node that speaks the kubelet protocol:
// virtual-kubelet's node controller (the Node object, its status and its
// Lease in kube-node-lease, renewed as a kubelet's), its pod controller
// (the pods bound to the node, through an informer on spec.nodeName) and
// its kubelet API server on 127.0.0.1 with a serving certificate of the
// test's CA, the same CA the API server verifies it with
// (--kubelet-certificate-authority). The node takes requests from the API
// server's client certificate only: TLS verifies it against the CA, the
// handler checks its name (a real kubelet asks the API server instead,
// webhook authentication and authorization through TokenReview and
// SubjectAccessReview; a user reaches the node only through the API
// server's pods/log and pods/exec, which RBAC guards).
func startVirtualNode(t *testing.T, ctx context.Context, c *cluster, name string, labels map[string]string, shadowDir, image string) *vprovider {
	t.Helper()
	port := freePort(t)
	cert, key := c.pki.issue(t, "kubelet-"+name, "system:node:"+name, "system:nodes", true)
	p := newProvider(name, t.TempDir(), shadowDir, image)
	mux := http.NewServeMux()
	onlyAPIServer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 || r.TLS.PeerCertificates[0].Subject.CommonName != apiserverKubeletUser {
			http.Error(w, "Forbidden: only the API server's client certificate is served", http.StatusForbidden)
			return
		}
		mux.ServeHTTP(w, r)
	})
	n, err := nodeutil.NewNode(name,
		func(cfg nodeutil.ProviderConfig) (nodeutil.Provider, vknode.NodeProvider, error) {
			p.cms = cfg.ConfigMaps
			return p, nil, nil
		},
		nodeutil.WithClient(c.client),
		nodeutil.WithTLSConfig(nodeutil.WithKeyPairFromPath(cert, key), nodeutil.WithCAFromPath(c.pki.caCert)),
		nodeutil.AttachProviderRoutes(mux),
		func(cfg *nodeutil.NodeConfig) error {
			cfg.HTTPListenAddr = fmt.Sprintf("127.0.0.1:%d", port)
			cfg.Handler = onlyAPIServer
			cfg.NumWorkers = 4
			for k, v := range labels {
				cfg.NodeSpec.Labels[k] = v
			}
			cfg.NodeSpec.Labels["kubernetes.io/os"] = "linux"
			// What the scheduler fits the pods' requests into: room for a
			// Job's shards at the default --cpus 2 and --pod-memory 4Gi.
			capacity := corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("32"),
				corev1.ResourceMemory: resource.MustParse("128Gi"),
				corev1.ResourcePods:   resource.MustParse("110"),
			}
			cfg.NodeSpec.Status.Capacity, cfg.NodeSpec.Status.Allocatable = capacity, capacity.DeepCopy()
			// Where the API server reaches the kubelet API
			// (--kubelet-preferred-address-types=InternalIP).
			cfg.NodeSpec.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}, {Type: corev1.NodeHostName, Address: name}}
			cfg.NodeSpec.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(port)
			cfg.NodeSpec.Status.NodeInfo = corev1.NodeSystemInfo{OperatingSystem: "linux", Architecture: "amd64",
				KubeletVersion: "v1.37.2-vprovider", ContainerRuntimeVersion: "vprovider://processes"}
			return nil
		},
	)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	go n.Run(ctx)
	t.Cleanup(func() {
		cancel()
		select {
		case <-n.Done():
		case <-time.After(30 * time.Second):
			t.Errorf("virtual node %s did not stop in 30 s", name)
		}
		p.mu.Lock()
		for _, vp := range p.pods {
			for _, cmd := range vp.running {
				cmd.Process.Kill()
			}
		}
		p.mu.Unlock()
		p.wg.Wait()
		for _, e := range p.errs {
			t.Errorf("virtual node %s: %s", name, e)
		}
	})
	if err := n.WaitReady(ctx, time.Minute); err != nil {
		t.Fatalf("virtual node %s not ready: %v", name, err)
	}
	return p
}
