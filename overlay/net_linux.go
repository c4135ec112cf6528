package overlay

import (
	"fmt"
	"io"
	"net"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/overlay/nsinit"
)

// shadow's side of a hypothesis's network (the init's is
// nsinit/net_linux.go): the init makes listening sockets inside the
// hypothesis's network namespace and sends them here; shadow accepts the
// command's connections on them and dials the other end from the host's
// namespace, so only what shadow chose crosses: --host-port N to the
// host's 127.0.0.1:N, and HTTP(S) through the outbound proxy
// (proxy_linux.go), which refuses the host's own addresses.

// HostPorts makes each host localhost TCP port reachable, at the same
// port, on every hypothesis's own 127.0.0.1 (--host-port; a database a
// suite needs). It returns s for chaining.
func (s *Sandbox) HostPorts(ports ...int) *Sandbox {
	s.hostPorts = append(s.hostPorts, ports...)
	return s
}

// netMode is the job's network as the init applies it: "" is the
// overlay default, a private namespace.
func netMode(net string) string {
	if net == "" {
		return nsinit.NetPrivate
	}
	return net
}

// netLink carries the init's listeners to shadow and serves them until
// the job ends.
type netLink struct {
	child *os.File       // the init's end
	conn  *net.UnixConn  // ours
	ports map[int]bool   // the host ports the init may send
	proxy *outboundProxy // nil: no proxy listener is accepted
	fds   *jobFDs        // the job's share of shadow's descriptors
	mu    sync.Mutex
	open  []io.Closer // listeners and connections, closed by Close
	done  bool
	wg    sync.WaitGroup
}

// newNetLink returns nil when the job's network needs no listener (host,
// isolated, or private with neither a proxy nor host ports).
func newNetLink(mode string, hostPorts []int, proxy *outboundProxy, budget *fdBudget) (*netLink, error) {
	if mode != nsinit.NetPrivate || (len(hostPorts) == 0 && proxy == nil) {
		return nil, nil
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket for the hypothesis's network listeners: %w", err)
	}
	f := os.NewFile(uintptr(fds[0]), "net-parent")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		unix.Close(fds[1])
		return nil, fmt.Errorf("socket for the hypothesis's network listeners: %w", err)
	}
	l := &netLink{child: os.NewFile(uintptr(fds[1]), "net-child"), conn: c.(*net.UnixConn), ports: map[int]bool{}, proxy: proxy, fds: budget.job()}
	for _, p := range hostPorts {
		l.ports[p] = true
	}
	l.wg.Add(1)
	go l.receive()
	return l, nil
}

// childEnd is what startInit hands the init (NetConfig.NetFD).
func (l *netLink) childEnd() []*os.File {
	if l == nil {
		return nil
	}
	return []*os.File{l.child}
}

// receive takes each listener the init sends and serves it.
func (l *netLink) receive() {
	defer l.wg.Done()
	buf, oob := make([]byte, 16), make([]byte, unix.CmsgSpace(4))
	for {
		n, oobn, _, _, err := l.conn.ReadMsgUnix(buf, oob)
		if err != nil || n == 0 {
			return
		}
		fd := -1
		if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil && len(msgs) == 1 {
			if fds, err := unix.ParseUnixRights(&msgs[0]); err == nil && len(fds) == 1 {
				fd = fds[0]
			}
		}
		if fd < 0 {
			continue
		}
		unix.CloseOnExec(fd)
		f := os.NewFile(uintptr(fd), "listener")
		ln, err := net.FileListener(f)
		f.Close()
		if err != nil {
			continue
		}
		if !l.track(ln) {
			return
		}
		switch buf[0] {
		case nsinit.ListenHostPort:
			port := nsinit.ListenerPort(buf[:n])
			if !l.ports[port] {
				ln.Close() // not a port shadow asked for
				continue
			}
			l.wg.Add(1)
			go l.forward(ln, port)
		case nsinit.ListenProxy:
			if l.proxy == nil {
				ln.Close()
				continue
			}
			l.wg.Add(1)
			go func() {
				defer l.wg.Done()
				l.proxy.serve(ln, l.fds, l.track)
			}()
		default:
			ln.Close()
		}
	}
}

// track registers c to be closed by Close; false (and c closed) when the
// link is already closed.
func (l *netLink) track(c io.Closer) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		c.Close()
		return false
	}
	l.open = append(l.open, c)
	return true
}

// forward connects each connection the command makes to its own
// 127.0.0.1:port to the host's 127.0.0.1:port, within the job's share of
// descriptors.
func (l *netLink) forward(ln net.Listener, port int) {
	defer l.wg.Done()
	for {
		in, err := l.fds.accept(ln)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			return
		}
		if !l.track(in) {
			return
		}
		go func() {
			out, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				in.Close() // the command sees the refusal as a reset
				return
			}
			if !l.track(out) {
				in.Close()
				return
			}
			pipe(in, out, in)
		}()
	}
}

// pipe copies both ways until both directions end, passing each half
// close on; both are closed once neither way moved a byte for connIdle
// (c, the accepted end, keeps the time).
func pipe(a, b net.Conn, c *budgetConn) {
	var wg sync.WaitGroup
	half := func(dst, src net.Conn) {
		defer wg.Done()
		_ = idleCopy(dst, src, c)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		} else {
			dst.Close()
		}
	}
	wg.Add(2)
	go half(a, b)
	go half(b, a)
	wg.Wait()
	a.Close()
	b.Close()
}

// Close ends every listener and connection of the job (its namespace is
// gone, or going: a listener shadow holds would keep it alive).
func (l *netLink) Close() {
	if l == nil {
		return
	}
	l.fds.close() // a connection waiting for the share ends
	l.mu.Lock()
	l.done = true
	open := l.open
	l.open = nil
	l.mu.Unlock()
	l.conn.Close()
	l.child.Close()
	for _, c := range open {
		c.Close()
	}
	l.wg.Wait()
}
