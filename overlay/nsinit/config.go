// Package nsinit is the sandbox init: the binary re-executed by the
// overlay sandbox into new namespaces, where it becomes PID 1, mounts the
// hypothesis's view, masks shadow's own directories, drops every
// privilege, starts the command in a new session and reaps.
//
// It is a package of its own, importing nothing but the standard library,
// x/sys/unix and fsutil, so that its init function, which takes over a
// process started as the init (argv[0] Arg0), runs before the packages
// the init never uses are initialized: Go initializes a package as soon as
// its imports are (the Go 1.21 order), and the TUI's syntax highlighter
// registry (chroma's lexers, ~12 ms and 2.7 MB per process) and the test
// output parsers' regexps (~4 ms) would otherwise be paid by every
// hypothesis. TestInitSkipsHeavyPackageInit (root package) keeps it so.
package nsinit

// Arg0 is argv[0] of the re-executed binary; the package's init function
// dispatches on it.
const Arg0 = "shadow-sandbox-init"

// The init's descriptors. The configuration comes through a pipe, not the
// environment: one environment string is capped at MAX_ARG_STRLEN (128 KiB,
// execve(2)), which a hypothesis deleting a few thousand paths exceeds.
const (
	ConfigFD = 3 // read end: the parent writes Config as JSON, then closes
	StatusFD = 4 // write end of the status socket pair: the init writes Status as JSON when it exits
	RAMFD    = 5 // --upper ram: a unix socket the init sends the tmpfs's root on
)

// Config is what the parent tells the init.
type Config struct {
	Lower   string   `json:"lower"`            // the workspace: lowerdir and mount point
	Lowers  []string `json:"lowers,omitempty"` // read-only layers stacked above Lower, topmost first
	Upper   string   `json:"upper"`            // the hypothesis's upper dir
	Work    string   `json:"work"`             // overlayfs work dir
	Options []string `json:"options"`          // overlay option sets to try, in order, e.g. "userxattr,volatile"
	Deletes []string `json:"deletes"`          // workspace-relative paths removed inside the mount (whiteouts)
	// Extra are further directories shadowed at their own path, each with
	// its own upper dir: a git worktree's common git dir, which lies
	// outside the workspace; $HOME; --writable paths and the caches that
	// lie outside $HOME. Everything else outside the workspace is
	// read-only (seal_linux.go).
	Extra []Dir `json:"extra,omitempty"`
	// Masks are covered, after every overlay is mounted, by an empty tmpfs
	// (directories) or /dev/null (sockets and other files): shadow's state
	// dir, the sandboxes dir, servers' sockets.
	Masks []string `json:"masks,omitempty"`
	Dir   string   `json:"dir"` // absolute working directory of the command
	Argv  []string `json:"argv"`
	// Net: "host" keeps the host's network namespace; anything else is a
	// new one with lo up, "private" ("", the default) with the listeners
	// of NetConfig (net_linux.go).
	Net string `json:"net"`
	NetConfig
	LimitConfig
	// Tmp: "shared" binds the host's /tmp and /var/tmp writable into the
	// view; anything else gives a fresh size-capped tmpfs on each. /dev/shm
	// is always a fresh tmpfs (seal_linux.go says why).
	Tmp   string `json:"tmp"`
	Probe bool   `json:"probe"`
	// RAM, when set, is the size cap in bytes of a tmpfs the init mounts
	// over Root (the hypothesis's directory: Upper, Work and the Extra
	// uppers) and copies Root's prepared tree onto, first of all
	// (ram_linux.go).
	RAM  int64  `json:"ram,omitempty"`
	Root string `json:"root,omitempty"`
}

// Dir is one more directory overlaid at its own path.
type Dir struct {
	Target string `json:"target"` // lowerdir and mount point
	Upper  string `json:"upper"`
	Work   string `json:"work"`
	// Submounts: the mounts below Target are bound again inside the
	// overlay (an overlay's lower layer does not cross mount points, so
	// they would show as empty directories): for $HOME and --writable
	// paths, not for git dirs.
	Submounts bool `json:"submounts,omitempty"`
	// Lowers are read-only layers stacked between Target and Upper,
	// topmost first: the home layer's caches (internal/sandbox/warm).
	Lowers []string `json:"lowers,omitempty"`
	// Made: Target is not a lower layer (it does not exist outside); the
	// init makes it inside the overlay mounted over its parent before it
	// mounts this one (a cache a fresh $HOME does not have yet).
	Made bool `json:"made,omitempty"`
	// Optional: where overlayfs refuses it, the directory is left as the
	// overlay above shows it (a home cache: its writes then land in
	// $HOME's upper, thrown away all the same) and the job goes on.
	Optional bool `json:"optional,omitempty"`
}

// Status is what the init reports back on StatusFD when it exits normally.
type Status struct {
	Stage   string `json:"stage,omitempty"` // step that failed, when Error is set
	Error   string `json:"error,omitempty"`
	Errno   string `json:"errno,omitempty"`
	Exit    int    `json:"exit"`
	Signal  string `json:"signal,omitempty"`
	Options string `json:"options,omitempty"` // the overlay option set that mounted
	Proc    bool   `json:"proc"`              // a fresh /proc was mounted
	// Warnings: what the seal could not do and the run did without ($HOME
	// or a --writable path overlayfs refused: read-only instead).
	Warnings []string `json:"warnings,omitempty"`
	// MaxRSSKiB: the largest peak resident set of any process the init
	// reaped (getrusage(2) RUSAGE_CHILDREN), for the report's peak memory
	// where no memory cgroup measures the whole tree.
	MaxRSSKiB int64 `json:"max_rss_kib,omitempty"`
}
