//go:build linux

package kube

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// cluster is a control plane without nodes: Debian's etcd, kube-apiserver
// and kube-controller-manager v1.37.2 (.ci/kube-up builds them), on
// 127.0.0.1, and kube-scheduler where a test starts it. The nodes are the
// test's: one it plays itself, binding pods (node_test.go), or a
// virtual-kubelet node the scheduler places pods on
// (vkubelet_node_test.go).
type cluster struct {
	dir        string
	kubeconfig string // system:masters (a client cert)
	nobody     string // an authenticated user RBAC grants nothing
	client     *kubernetes.Clientset
	pki        *pki
}

// kubeBins are the control plane's binaries, or a skip with the reason.
func kubeBins(t *testing.T) (apiserver, controller, etcd string) {
	t.Helper()
	dir := os.Getenv("KUBE_BIN_DIR")
	if dir == "" {
		t.Skip("KUBE_BIN_DIR is not set: it names a directory with kube-apiserver and kube-controller-manager v1.37.2 (.ci/kube-up builds them and prints it)")
	}
	apiserver, controller = filepath.Join(dir, "kube-apiserver"), filepath.Join(dir, "kube-controller-manager")
	for _, b := range []string{apiserver, controller} {
		if _, err := os.Stat(b); err != nil {
			t.Skipf("KUBE_BIN_DIR=%s has no %s (.ci/kube-up builds it): %v", dir, filepath.Base(b), err)
		}
	}
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		t.Skip("etcd is not installed (apt-get install etcd-server)")
	}
	return apiserver, controller, etcd
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startCluster starts the three and waits until the API server is ready
// and the controllers act: the Job, TTL and garbage collector controllers,
// and the controllers named in more (kube-controller-manager's
// --controllers names).
func startCluster(t *testing.T, more ...string) *cluster {
	apiserverBin, controllerBin, etcdBin := kubeBins(t)
	dir := t.TempDir()
	pki := newPKI(t, dir)
	c := &cluster{dir: dir, pki: pki}
	// The client certificate the API server shows a kubelet (a virtual
	// node's API: pods/log, pods/exec), and the CA it checks the kubelet's
	// serving certificate against: the test's one CA signs both.
	kubeletClientCert, kubeletClientKey := pki.issue(t, "apiserver-kubelet-client", apiserverKubeletUser, "system:masters", false)

	etcdPort, peerPort, apiPort := freePort(t), freePort(t), freePort(t)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPort)
	daemon(t, dir, "etcd", etcdBin, "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peerPort),
		"--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peerPort),
		"--initial-cluster", fmt.Sprintf("default=http://127.0.0.1:%d", peerPort))

	apiDone := daemon(t, dir, "kube-apiserver", apiserverBin,
		"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", fmt.Sprint(apiPort), "--cert-dir", filepath.Join(dir, "apiserver-certs"),
		"--tls-cert-file", pki.serverCert, "--tls-private-key-file", pki.serverKey,
		"--client-ca-file", pki.caCert,
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", pki.saPub, "--service-account-signing-key-file", pki.saKey,
		"--service-cluster-ip-range", "10.96.0.0/24",
		"--authorization-mode", "Node,RBAC",
		// No service account controller runs: pods go without one.
		"--disable-admission-plugins", "ServiceAccount",
		"--allow-privileged=true",
		// 127.0.0.1 is loopback: no kubernetes Service endpoints for it.
		"--endpoint-reconciler-type=none",
		"--kubelet-certificate-authority", pki.caCert,
		"--kubelet-client-certificate", kubeletClientCert, "--kubelet-client-key", kubeletClientKey,
		"--kubelet-preferred-address-types=InternalIP")

	server := fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	c.kubeconfig = pki.kubeconfig(t, "admin", server, "shadow-admin", "system:masters")
	c.nobody = pki.kubeconfig(t, "nobody", server, "shadow-nobody", "")
	waitReady(t, server, pki, apiDone)

	cfg, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if c.client, err = kubernetes.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	daemon(t, dir, "kube-controller-manager", controllerBin,
		"--kubeconfig", c.kubeconfig,
		"--controllers", strings.Join(append([]string{"job", "ttl-after-finished", "garbagecollector"}, more...), ","),
		"--leader-elect=false", "--secure-port=0",
		"--use-service-account-credentials=false",
		"--concurrent-job-syncs=4")
	return c
}

// startScheduler starts kube-scheduler (from KUBE_BIN_DIR, or a skip
// with the reason) for the virtual node's tests: pods are then placed by
// the real scheduler's filters (node selector, taints, resources), not
// bound by the test.
func (c *cluster) startScheduler(t *testing.T) {
	t.Helper()
	bin := filepath.Join(os.Getenv("KUBE_BIN_DIR"), "kube-scheduler")
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("KUBE_BIN_DIR has no kube-scheduler (.ci/kube-up builds it beside kube-apiserver): %v", err)
	}
	// --secure-port=0: no serving endpoint (nor its delegated
	// authentication) for health checks nobody makes here.
	daemon(t, c.dir, "kube-scheduler", bin, "--kubeconfig", c.kubeconfig, "--leader-elect=false", "--secure-port=0")
}

// daemon starts a server for the test's life, its output in DIR/NAME.log
// (printed when the test fails).
func daemon(t *testing.T, dir, name, bin string, args ...string) <-chan struct{} {
	t.Helper()
	logPath := filepath.Join(dir, name+".log")
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		log.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			if len(b) > 6000 {
				b = b[len(b)-6000:]
			}
			t.Logf("--- %s (last lines)\n%s", name, b)
		}
	})
	return done
}

func waitReady(t *testing.T, server string, p *pki, died <-chan struct{}) {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(p.dir+"/admin.crt", p.dir+"/admin.key")
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	ca, _ := os.ReadFile(p.caCert)
	pool.AppendCertsFromPEM(ca)
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}}}
	deadline := time.Now().Add(3 * time.Minute)
	var last string
	for time.Now().Before(deadline) {
		select {
		case <-died:
			t.Fatal("kube-apiserver exited (its log follows)")
		default:
		}
		resp, err := hc.Get(server + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("kube-apiserver not ready in 3 minutes: %s", last)
}

// pki is the cluster's certificates: one CA signs the API server's
// serving cert and the users' client certs (the API server authenticates
// a client cert's CN as the user, O as its groups).
type pki struct {
	dir                                         string
	caCert, serverCert, serverKey, saKey, saPub string
	ca                                          *x509.Certificate
	caKey                                       *ecdsa.PrivateKey
}

func newPKI(t *testing.T, dir string) *pki {
	t.Helper()
	p := &pki{dir: filepath.Join(dir, "pki")}
	os.MkdirAll(p.dir, 0o700)
	var err error
	p.caKey, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "shadow-e2e-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &p.caKey.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	p.ca, _ = x509.ParseCertificate(der)
	p.caCert = p.write(t, "ca.crt", "CERTIFICATE", der)
	p.serverCert, p.serverKey = p.issue(t, "apiserver", "kube-apiserver", "", true)
	saKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	kb, _ := x509.MarshalECPrivateKey(saKey)
	p.saKey = p.write(t, "sa.key", "EC PRIVATE KEY", kb)
	pb, _ := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	p.saPub = p.write(t, "sa.pub", "PUBLIC KEY", pb)
	return p
}

func (p *pki) write(t *testing.T, name, typ string, der []byte) string {
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

var serial int64 = 1

func (p *pki) issue(t *testing.T, name, cn, org string, server bool) (cert, key string) {
	t.Helper()
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
	}
	if org != "" {
		tmpl.Subject.Organization = []string{org}
	}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.96.0.1")}
		tmpl.DNSNames = []string{"localhost", "kubernetes.default.svc"}
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &k.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(k)
	return p.write(t, name+".crt", "CERTIFICATE", der), p.write(t, name+".key", "EC PRIVATE KEY", kb)
}

// kubeconfig writes a kubeconfig for user cn (groups org) and returns its path.
func (p *pki) kubeconfig(t *testing.T, name, server, cn, org string) string {
	t.Helper()
	cert, key := p.issue(t, name, cn, org, false)
	path := filepath.Join(p.dir, name+".kubeconfig")
	body := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster: {server: %q, certificate-authority: %q}
users:
- name: %s
  user: {client-certificate: %q, client-key: %q}
contexts:
- name: e2e
  context: {cluster: e2e, user: %s}
current-context: e2e
`, server, p.caCert, name, cert, key, name)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// addNode registers the node the test plays, Ready, as a kubelet would.
func (c *cluster) addNode(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	n, err := c.client.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: name, Labels: map[string]string{"kubernetes.io/hostname": name, "shadow.dev/mirror": "yes"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
		LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
	if _, err := c.client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func (c *cluster) namespace(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if _, err := c.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// lastLines is for failure messages.
func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
