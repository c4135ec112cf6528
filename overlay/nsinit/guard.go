package nsinit

import "encoding/binary"

// The network and limit parts of Config, here so that Config compiles on
// every platform (the init itself is Linux-only: net_linux.go,
// limits_linux.go).

// Net modes (Config.Net).
const (
	NetHost     = "host"     // the host's namespace (no CLONE_NEWNET)
	NetIsolated = "isolated" // loopback only, nothing crosses
	NetPrivate  = "private"  // loopback, plus the proxy and --host-port listeners
)

// NewNet reports whether mode gets a network namespace of its own: every
// mode but host. "" is the overlay default, private.
func NewNet(mode string) bool { return mode != NetHost }

// NetConfig is the network part of Config.
type NetConfig struct {
	// NetFD, when not 0, is a unix socket the init sends its listeners on.
	NetFD int `json:"net_fd,omitempty"`
	// HostPorts are host localhost TCP ports (--host-port) the command
	// reaches at the same port on its own 127.0.0.1: the init listens
	// there, shadow connects each accepted connection to the host's port.
	HostPorts []int `json:"host_ports,omitempty"`
	// Proxy: listen on an ephemeral 127.0.0.1 port for shadow's outbound
	// HTTP(S) proxy and name it in the command's HTTP_PROXY/HTTPS_PROXY.
	Proxy bool `json:"proxy,omitempty"`
}

// Listener kinds, the first byte of each message on NetFD; a host port
// follows as two bytes, big-endian.
const (
	ListenProxy    = 'p'
	ListenHostPort = 'h'
)

// ListenerPort decodes a host port message (ListenHostPort).
func ListenerPort(msg []byte) int {
	if len(msg) < 3 {
		return 0
	}
	return int(binary.BigEndian.Uint16(msg[1:3]))
}

// LimitConfig is the resource part of Config: what the init applies to
// itself before it starts the command, which inherits it. Cgroup limits
// are set by shadow, which moves the init into the cgroup before it
// writes the configuration (overlay/limits_linux.go).
type LimitConfig struct {
	// OOMScoreAdj, when not 0, is written to /proc/self/oom_score_adj: a
	// higher value makes the kernel's OOM killer pick the hypothesis
	// before shadow or a sibling's smaller tree (proc(5)). Raising it
	// needs no privilege.
	OOMScoreAdj int `json:"oom_score_adj,omitempty"`
	// TmpBytes caps each private tmpfs (/tmp, /var/tmp, /dev/shm), in
	// bytes; 0: a quarter of RAM (overlay's tmpcap_linux.go says why it
	// is a share of what shadow may use).
	TmpBytes int64 `json:"tmp_bytes,omitempty"`
	// NProc, when not 0, is RLIMIT_NPROC for the command. Since Linux 5.14
	// the count it is checked against is per user namespace (ucounts,
	// commit 21d1c5e386bc "Reimplement RLIMIT_NPROC on top of ucounts"):
	// inside the hypothesis's user namespace it counts only the
	// hypothesis's own processes and threads, and every level above is
	// charged too, so a fork bomb stops at NProc tasks and the user keeps
	// the rest of their own limit for shadow's threads and the siblings.
	// Without a user namespace (root) the limit is not enforced at all
	// (fork(2) skips it for uid 0's init_ucounts): root uses the pids
	// cgroup instead.
	NProc int64 `json:"nproc,omitempty"`
}
