package overlay

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"
)

// outboundProxy is a hypothesis's way out of its private network
// namespace: an HTTP proxy (CONNECT for https, absolute URIs for http)
// shadow serves on a listener inside the namespace, named in the command's
// HTTP_PROXY/HTTPS_PROXY. Package managers (go, npm, pip, cargo), git and
// curl honour those variables; anything else has no outbound network, as
// under --net isolated. Nothing is started until a connection comes: a
// hypothesis that never goes out costs one listening socket.
//
// It refuses every address of this host (loopback, the host's interface
// addresses, unspecified): a hypothesis reaches a host service only
// through --host-port, never by asking the proxy for 127.0.0.1:5432 or the
// host's LAN address.
type outboundProxy struct {
	dialer net.Dialer
	tr     *http.Transport
}

func newOutboundProxy() *outboundProxy {
	p := &outboundProxy{}
	p.dialer = net.Dialer{Timeout: 30 * time.Second, Control: refuseHostAddrs}
	// The pool of idle upstream connections is shared by every job and
	// bounded (part of shadow's reserve, fdbudget_linux.go); a request in
	// flight uses the descriptor its client connection was counted with.
	p.tr = &http.Transport{DialContext: p.dialer.DialContext, Proxy: nil, ForceAttemptHTTP2: false,
		IdleConnTimeout: 30 * time.Second, TLSHandshakeTimeout: 30 * time.Second,
		MaxIdleConns: 64, MaxIdleConnsPerHost: 4}
	return p
}

// refuseHostAddrs is the dialer's check of the resolved address, made
// just before connect(2) (so a name resolving to 127.0.0.1 is refused
// too).
func refuseHostAddrs(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return fmt.Errorf("shadow's proxy: %s is not an IP address", host)
	}
	if isHostAddr(ip) {
		return fmt.Errorf("shadow's proxy refuses %s: it is this host; use --host-port to reach a host service", ip)
	}
	return nil
}

// isHostAddr reports whether ip reaches this host: loopback, unspecified,
// link-local, or one of its interfaces' addresses (read at each call:
// interfaces come and go).
func isHostAddr(ip net.IP) bool {
	if ip.IsLoopback() || ip.IsUnspecified() || ip.IsLinkLocalUnicast() || ip.IsMulticast() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return true // cannot tell: refuse
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// serve answers proxy requests on ln until it is closed, each connection
// within the job's share of descriptors (fds); track registers each
// connection so the job's end closes it.
func (p *outboundProxy) serve(ln net.Listener, fds *jobFDs, track func(io.Closer) bool) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := fds.accept(ln)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			return
		}
		if !track(c) {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.handle(c, track)
		}()
	}
}

// handle reads requests from one client connection; one idle for
// keepAliveIdle before its next request is closed.
func (p *outboundProxy) handle(c *budgetConn, track func(io.Closer) bool) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		_ = c.SetReadDeadline(time.Now().Add(keepAliveIdle()))
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_ = c.SetReadDeadline(time.Time{})
		c.touch()
		if req.Method == http.MethodConnect {
			p.connect(c, br, req, track)
			return
		}
		if !req.URL.IsAbs() || req.URL.Scheme != "http" {
			writeStatus(c, http.StatusBadRequest, "shadow's proxy takes CONNECT host:port or an absolute http:// URL")
			return
		}
		req.RequestURI = ""
		for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade"} {
			req.Header.Del(h)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		resp, err := p.tr.RoundTrip(req.WithContext(ctx))
		if err != nil {
			cancel()
			writeStatus(c, http.StatusBadGateway, err.Error())
			return
		}
		err = resp.Write(c)
		resp.Body.Close()
		cancel()
		if err != nil || req.Close || resp.Close {
			return
		}
	}
}

// connect tunnels a CONNECT request.
func (p *outboundProxy) connect(c *budgetConn, br *bufio.Reader, req *http.Request, track func(io.Closer) bool) {
	out, err := p.dialer.Dial("tcp", req.Host)
	if err != nil {
		writeStatus(c, http.StatusBadGateway, err.Error())
		return
	}
	if !track(out) {
		return
	}
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		out.Close()
		return
	}
	// Bytes the client sent after the request (a TLS hello) are in br.
	if n := br.Buffered(); n > 0 {
		b, _ := br.Peek(n)
		if _, err := out.Write(b); err != nil {
			out.Close()
			return
		}
	}
	pipe(c, out, c)
}

func writeStatus(c net.Conn, code int, msg string) {
	msg = strings.ReplaceAll(msg, "\n", " ")
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", code, http.StatusText(code), len(msg), msg)
}
