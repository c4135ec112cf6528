package overlay

import "strings"

// The seal's contract: what overlay mode holds against a hostile command
// and what it does not. `shadow probe`'s "protects against" line is made
// of these sentences and docs/modes.md's overlay section lists each of
// them word for word; every claim names the routes of the conformance
// suite (internal/sandbox/sandboxtest, run as root and as a user) that
// try to break it. TestDocsModesOverlaySealIsTheCode holds all three to
// one another.

// A Claim is one thing the seal holds, and the suite's routes that try
// to break it.
type Claim struct {
	Text   string
	Routes []string
}

// SealHolds is what the seal holds.
var SealHolds = []Claim{
	{"each hypothesis in its own mount, PID and IPC namespaces (a user namespace too unless shadow runs as root), no capability in any set, no_new_privs", []string{"NoCapabilities", "Umount", "PeelMasksInNestedNamespace", "ProcOneCwdAndRoot"}},
	{"no write outside the workspace outlives it: / is read-only, $HOME, caches and --writable paths are its own overlays, /tmp, /var/tmp and /dev/shm its own tmpfs, together capped at a share of the memory shadow may use", []string{"RootSystemWritesVanish", "PersistenceInHome", "RenameEveryAncestorOfTheMask", "GoEnvAndCachePoisoning"}},
	{"shadow's directories (state dir, records, the siblings' upper dirs) are masked", []string{"StateDir", "SiblingUpper", "UsercustomizeReachesNoSibling"}},
	{"only descriptors 0-2 reach it, in a session of its own with no controlling terminal (no TIOCSTI)", []string{"InheritedFDs", "TIOCSTI"}},
	{"a minimal /dev (null, zero, full, random, urandom, tty, a devpts of its own): no terminal of the user's", []string{"TerminalKeylogger", "RootDevicesAndSysctls"}},
	{"no pathname unix socket but its own, decided at connect: a server bound later or by a relative path (tmux -S ./sock) is refused", []string{"CallersTmux", "TmuxBoundLaterByRelativePath", "TmuxOnNonDefaultSocket"}},
	{"SysV IPC and POSIX message queues are its own and go with it; keyrings are refused", []string{"IPCAndKeysOutliveTheRun"}},
	{"with --net private or isolated, its own loopback: no localhost service or abstract socket of the host", []string{"HostLocalhostServiceUnreachable", "AbstractSocketUnreachable", "SameFixedPortBothPass"}},
	{"every process it started ends with it, on exit, timeout, cancel or shadow's death", []string{"NothingLeftRunning", "DaemonEndedBeforeRestore", "TimeoutEndsTree", "CancelEndsTree"}},
}

// SealDoesNot is what the seal does not hold.
var SealDoesNot = []string{
	"it reads whatever you can read outside shadow's masked directories",
	"with --net host, localhost TCP and the host's abstract unix sockets stay reachable",
	"CPU, disk space and I/O are not capped; memory only with --memory",
	"a socket its own server binds outside its own places (the host's /tmp with --tmp shared) is reachable as a stream socket only (the init asks the listener's pid), a datagram one not at all",
}

// ProtectionLine is the probe's "protects against" line for overlay mode.
func ProtectionLine() string {
	holds := make([]string, len(SealHolds))
	for i, c := range SealHolds {
		holds[i] = c.Text
	}
	return "a hostile command: " + strings.Join(holds, "; ") + ". Not: " + strings.Join(SealDoesNot, "; ") + " (docs/modes.md)"
}
