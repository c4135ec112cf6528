//go:build tools

// Package build pins the three Kubernetes components the e2e test in
// test/kube runs: kube-apiserver, kube-controller-manager and
// kube-scheduler v1.37.2, built
// from the Go module proxy (k8s.io/kubernetes itself, with go.mod's replace
// lines pointing its staging modules, k8s.io/api and the rest, at their
// v0.37.2 releases, as k8s.io/kubernetes's own go.mod does with ./staging).
// .ci/kube-up runs: go build -o DIR k8s.io/kubernetes/cmd/kube-apiserver
// k8s.io/kubernetes/cmd/kube-controller-manager, then
// k8s.io/kubernetes/cmd/kube-scheduler
package build

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
