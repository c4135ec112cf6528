package nsinit

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// The network side of the init. In overlay mode every hypothesis gets a
// network namespace of its own unless --net host: a fresh one holds only a
// loopback interface, down (network_namespaces(7)), which the init brings
// up. So every hypothesis can bind 127.0.0.1:8080, none reaches another's
// servers or the host's localhost services, and abstract unix sockets,
// which live in the network namespace (unix(7)), are the hypothesis's own.
//
// What crosses the boundary is decided by shadow, through listening
// sockets the init makes inside the namespace and hands to shadow over
// NetConfig.NetFD (SCM_RIGHTS, unix(7)): a socket stays in the namespace it
// was created in wherever its descriptor goes, so shadow accepts the
// command's connections there and dials the other end from the host's
// namespace. That costs one socket(2) and bind(2) per listener, where
// pasta (passt) took 140-600 ms to start per namespace on the machine this
// was written on, past the whole per-hypothesis budget.

// setupNet brings lo up in a new network namespace and makes the
// listeners; it returns what the command's environment gains (the proxy's
// address: the caller sets it in the init's own environment, which the
// command inherits). It runs before the privilege drop: SIOCSIFFLAGS needs
// CAP_NET_ADMIN in the namespace's user namespace.
func setupNet(cfg *Config) (env []string, stage string, err error) {
	if !NewNet(cfg.Net) {
		return nil, "", nil
	}
	if err := loopbackUp(); err != nil {
		return nil, "bring up lo", err
	}
	if cfg.NetFD == 0 {
		return nil, "", nil
	}
	defer unix.Close(cfg.NetFD)
	for _, p := range cfg.HostPorts {
		fd, _, err := listenLoopback(p)
		if err != nil {
			return nil, fmt.Sprintf("listen on 127.0.0.1:%d for --host-port", p), err
		}
		err = unix.Sendmsg(cfg.NetFD, []byte{ListenHostPort, byte(p >> 8), byte(p)}, unix.UnixRights(fd), nil, 0)
		unix.Close(fd)
		if err != nil {
			return nil, "send the --host-port listener to shadow", err
		}
	}
	if cfg.Proxy {
		fd, port, err := listenLoopback(0)
		if err != nil {
			return nil, "listen on 127.0.0.1 for the outbound proxy", err
		}
		err = unix.Sendmsg(cfg.NetFD, []byte{ListenProxy}, unix.UnixRights(fd), nil, 0)
		unix.Close(fd)
		if err != nil {
			return nil, "send the proxy listener to shadow", err
		}
		env = proxyEnv(port)
	}
	return env, "", nil
}

// proxyEnv names the proxy in the variables curl, git, Go, npm, pip,
// cargo and most HTTP clients read (upper and lower case: curl reads
// http_proxy only in lower case), and keeps loopback direct.
func proxyEnv(port int) []string {
	u := fmt.Sprintf("http://127.0.0.1:%d", port)
	var env []string
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		env = append(env, k+"="+u)
	}
	return append(env, "NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1")
}

// listenLoopback makes a listening TCP socket on 127.0.0.1:port (0: any)
// and returns it with its port.
func listenLoopback(port int) (int, int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, 0, err
	}
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return -1, 0, err
	}
	if err := unix.Listen(fd, 128); err != nil {
		unix.Close(fd)
		return -1, 0, err
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		return -1, 0, err
	}
	return fd, sa.(*unix.SockaddrInet4).Port, nil
}
