//go:build linux

package kube

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

// The manifests docs/kube.md gives (the mirror's DaemonSet and claim, the Role
// apply and collect need) are ones the API server accepts: each is
// created with dryRun=All (validated and admitted, not stored).
func TestKubeDocManifestsAreAccepted(t *testing.T) {
	c := startCluster(t)
	ctx := context.Background()
	doc, err := os.ReadFile("../../docs/kube.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	c.namespace(t, ctx, "shadow")
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	kinds := map[string]bool{}
	for _, b := range blocks {
		obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(b[1]), nil, nil)
		if err != nil {
			t.Errorf("docs/kube.md: a yaml block does not decode: %v\n%s", err, b[1])
			continue
		}
		kinds[gvk.Kind] = true
		switch o := obj.(type) {
		case *appsv1.DaemonSet:
			_, err = c.client.AppsV1().DaemonSets(o.Namespace).Create(ctx, o, dry)
		case *rbacv1.Role:
			_, err = c.client.RbacV1().Roles(o.Namespace).Create(ctx, o, dry)
		case *corev1.PersistentVolumeClaim:
			_, err = c.client.CoreV1().PersistentVolumeClaims(o.Namespace).Create(ctx, o, dry)
		default:
			t.Errorf("docs/kube.md: a %s the test does not create", gvk.Kind)
			continue
		}
		if err != nil {
			t.Errorf("docs/kube.md's %s is refused: %v", gvk.Kind, err)
		}
	}
	if !kinds["DaemonSet"] || !kinds["Role"] || !kinds["PersistentVolumeClaim"] {
		t.Errorf("docs/kube.md's manifests: %v, want the DaemonSet, the claim and the Role", strings.Join(func() []string {
			var k []string
			for n := range kinds {
				k = append(k, n)
			}
			return k
		}(), ", "))
	}
}
