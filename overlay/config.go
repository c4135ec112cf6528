// Package overlay runs a hypothesis in an overlayfs view of the workspace,
// mounted at the workspace's own path inside new user, mount and PID
// namespaces, so build caches stay warm and nothing outside sees it.
//
// The parent (Sandbox.Run) prepares upper/ and work/ and re-executes the
// binary as a hidden init (package nsinit, dispatched before main). The init
// becomes PID 1 of the new PID namespace, mounts, masks shadow's own
// directories, drops every privilege, starts the command in a new session
// and reaps; when it exits the kernel ends every process left in the
// namespace.
package overlay

import "github.com/shadow-dev/shadow/overlay/nsinit"

// The init's configuration and report, its argv[0] and descriptors.
type (
	initConfig = nsinit.Config
	initStatus = nsinit.Status
	shadowDir  = nsinit.Dir
)

const (
	initArg0 = nsinit.Arg0
	configFD = nsinit.ConfigFD
	statusFD = nsinit.StatusFD
)
