// Package overlay runs a hypothesis in an overlayfs view of the workspace,
// mounted at the workspace's own path inside new user, mount and PID
// namespaces, so build caches stay warm and nothing outside sees it.
//
// The parent (Sandbox.Run) prepares upper/ and work/ and re-executes the
// binary as a hidden init (MaybeInit, dispatched first in main). The init
// becomes PID 1 of the new PID namespace, mounts, masks shadow's own
// directories, drops every privilege, starts the command in a new session
// and reaps; when it exits the kernel ends every process left in the
// namespace.
package overlay

// initArg0 is argv[0] of the re-executed binary; MaybeInit dispatches on it.
const initArg0 = "shadow-sandbox-init"

// The init's descriptors. The configuration comes through a pipe, not the
// environment: one environment string is capped at MAX_ARG_STRLEN (128 KiB,
// execve(2)), which a hypothesis deleting a few thousand paths exceeds.
const (
	configFD = 3 // read end: the parent writes initConfig as JSON, then closes
	statusFD = 4 // write end: the init writes initStatus as JSON when it exits
)

// initConfig is what the parent tells the init.
type initConfig struct {
	Lower   string   `json:"lower"`            // the workspace: lowerdir and mount point
	Lowers  []string `json:"lowers,omitempty"` // read-only layers stacked above Lower, topmost first
	Upper   string   `json:"upper"`            // the hypothesis's upper dir
	Work    string   `json:"work"`             // overlayfs work dir
	Options []string `json:"options"`          // overlay option sets to try, in order, e.g. "userxattr,volatile"
	Deletes []string `json:"deletes"`          // workspace-relative paths removed inside the mount (whiteouts)
	// Extra are further directories shadowed at their own path, each with
	// its own upper dir: a git worktree's common git dir, which lies
	// outside the workspace.
	Extra []shadowDir `json:"extra,omitempty"`
	// Masks are covered, after every overlay is mounted, by an empty tmpfs
	// (directories) or /dev/null (sockets and other files): shadow's state
	// dir, the sandboxes dir, servers' sockets.
	Masks []string `json:"masks,omitempty"`
	Dir   string   `json:"dir"` // absolute working directory of the command
	Argv  []string `json:"argv"`
	Net   string   `json:"net"` // "isolated": bring lo up in the new network namespace
	Tmp   string   `json:"tmp"` // "private": a fresh tmpfs on /tmp
	Probe bool     `json:"probe"`
	// RAM, when set, is the size cap in bytes of a tmpfs the init mounts
	// over Root (the hypothesis's directory: Upper, Work and the Extra
	// uppers) and copies Root's prepared tree onto, first of all
	// (ram_linux.go).
	RAM  int64  `json:"ram,omitempty"`
	Root string `json:"root,omitempty"`
}

// shadowDir is one more directory overlaid at its own path.
type shadowDir struct {
	Target string `json:"target"` // lowerdir and mount point
	Upper  string `json:"upper"`
	Work   string `json:"work"`
}

// initStatus is what the init reports back on statusFD when it exits normally.
type initStatus struct {
	Stage   string `json:"stage,omitempty"` // step that failed, when Error is set
	Error   string `json:"error,omitempty"`
	Errno   string `json:"errno,omitempty"`
	Exit    int    `json:"exit"`
	Signal  string `json:"signal,omitempty"`
	Options string `json:"options,omitempty"` // the overlay option set that mounted
	Proc    bool   `json:"proc"`              // a fresh /proc was mounted
}
