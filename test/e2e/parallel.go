//go:build linux

package e2e

import "testing"

// Parallel lets an end-to-end test run beside the others (go test runs
// -parallel, by default GOMAXPROCS, of them at once). The env
// constructors call it: each test builds its own workspace, state dir,
// spec dir and tmux socket, runs the binary with its own XDG_STATE_HOME,
// and finds its processes by markers or paths of its own, so none shares
// state with another. Most of an end-to-end test's time is spent waiting
// on the commands shadow runs (sleeps, pytest), which is why running them
// serially made the root package the longest part of CI.
//
// The remote tests (newRemoteEnvAs) stay serial: they weigh nodes'
// timings against each other (the next free slot, keep-alives), and
// beside the others, at load 35, a 3 s hypothesis outlasted three of
// 0.3 s plus their sandbox starts, so the free slot was another.
//
// A test may build two envs, or a subtest may have called t.Parallel
// itself before its env: t.Parallel panics when called twice, before it
// changes anything, so that panic is recovered and the test stays as it
// was. (It panics the same way after t.Setenv or t.Chdir; such a test
// runs serially, as it must.)
func Parallel(t *testing.T) {
	t.Helper()
	defer func() { _ = recover() }()
	t.Parallel()
}
