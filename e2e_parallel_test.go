//go:build linux

package main

import "testing"

// parallel lets an end-to-end test run beside the others (go test runs
// -parallel, by default GOMAXPROCS, of them at once). Every env
// constructor calls it: each test builds its own workspace, state dir,
// spec dir, tmux socket and sshd nodes, runs the binary with its own
// XDG_STATE_HOME, and finds its processes by markers or paths of its own,
// so none shares state with another. Most of an end-to-end test's time is
// spent waiting on the commands shadow runs (sleeps, pytest, sshd), which
// is why running them serially made the root package the longest part of
// CI.
//
// A test may build two envs, or a subtest may have called t.Parallel
// itself before its env: t.Parallel panics when called twice, before it
// changes anything, so that panic is recovered and the test stays as it
// was. (It panics the same way after t.Setenv or t.Chdir; such a test
// runs serially, as it must.)
func parallel(t *testing.T) {
	t.Helper()
	defer func() { _ = recover() }()
	t.Parallel()
}
