package sandboxtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

// runNetwork runs the routes through the network a hypothesis shares with
// its siblings, the host and the user's servers, with the sandbox's
// default network (Job.Net ""): overlay mode gives each hypothesis a
// network namespace of its own (docs/modes.md, "overlay").
func runNetwork(t *testing.T, s *suite) {
	t.Run("SameFixedPortBothPass", s.sameFixedPort)
	t.Run("HostLocalhostServiceUnreachable", s.hostService)
	t.Run("AbstractSocketUnreachable", s.abstractSocket)
	t.Run("TmuxOnNonDefaultSocket", s.tmuxNonDefault)
}

// defaultNet is f.job with the sandbox's default network and /tmp.
func (f *fixture) defaultNet(hyp engine.Hypothesis, script string, out *syncBuffer, tmp string) engine.Job {
	j := f.job(hyp, script, out)
	j.Net, j.Tmp = "", tmp
	return j
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed (the routes' client and server)")
	}
}

// sameFixedPort: two correct fixes whose tests bind one fixed localhost
// port, at the same time: on a shared network one fails with EADDRINUSE.
func (s *suite) sameFixedPort(t *testing.T) {
	if !s.p.Parallel {
		t.Skip("the sandbox runs one job at a time")
	}
	needPython(t)
	f := s.setup(t)
	port := freeLocalPort(t)
	script := fmt.Sprintf(`python3 -c '
import socket, time
s = socket.socket()
s.bind(("127.0.0.1", %d))
s.listen()
print("BOUND", flush=True)
time.sleep(1.5)
'`, port)
	var wg sync.WaitGroup
	outs := make([]syncBuffer, 2)
	codes := make([]int, 2)
	errs := make([]error, 2)
	for i := range outs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			o, err := f.sb.Run(context.Background(), f.defaultNet(engine.Hypothesis{Name: fmt.Sprint("h", i)}, script, &outs[i], ""))
			codes[i], errs[i] = o.ExitCode, err
		}(i)
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil || codes[i] != 0 {
			t.Errorf("hypothesis %d binding 127.0.0.1:%d: exit %d, %v:\n%s", i, port, codes[i], errs[i], outs[i].String())
		}
	}
}

// hostService: a service of the user's on the host's 127.0.0.1 (a dev
// database, a real fix's server another candidate would talk to) is not
// reachable by default.
func (s *suite) hostService(t *testing.T) {
	needPython(t)
	f := s.setup(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			fmt.Fprintln(c, "HOST-SERVICE-SECRET-2718")
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	var out syncBuffer
	_, err = f.sb.Run(context.Background(), f.defaultNet(engine.Hypothesis{Name: "evil"}, fmt.Sprintf(`python3 -c '
import socket
for host in ["127.0.0.1", "localhost"]:
    try:
        c = socket.create_connection((host, %d), timeout=3)
        print("GOT", c.recv(100).decode(), flush=True)
    except Exception as e:
        print("refused", host, e, flush=True)
'`, port), &out, ""))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "HOST-SERVICE-SECRET-2718") {
		t.Errorf("the command reached a host localhost service by default:\n%s", out.String())
	}
}

// abstractSocket: an abstract unix socket (no file to mask) a server of
// the user's listens on; abstract names belong to the network namespace
// (unix(7)).
func (s *suite) abstractSocket(t *testing.T) {
	needPython(t)
	f := s.setup(t)
	name := fmt.Sprintf("shadow-sbt-abstract-%d", os.Getpid())
	l, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Skipf("abstract unix sockets: %v", err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			fmt.Fprintln(c, "ABSTRACT-SECRET-1414")
			c.Close()
		}
	}()
	var out syncBuffer
	_, err = f.sb.Run(context.Background(), f.defaultNet(engine.Hypothesis{Name: "evil"}, `python3 -c '
import socket
c = socket.socket(socket.AF_UNIX)
try:
    c.connect("\0`+name+`")
    print("GOT", c.recv(100).decode(), flush=True)
except Exception as e:
    print("refused", e, flush=True)
'`, &out, ""))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "ABSTRACT-SECRET-1414") {
		t.Errorf("the command reached an abstract socket of the host:\n%s", out.String())
	}
}

// tmuxNonDefault: a tmux server on a socket of its own (-S /tmp/x/sock),
// which `find / -type s` finds; run-shell would run anything outside
// every sandbox. With the default /tmp, and with the host's (--tmp
// shared), where the socket file is in view.
func (s *suite) tmuxNonDefault(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	for _, tmp := range []string{"", "shared"} {
		t.Run("tmp="+tmp, func(t *testing.T) {
			f := s.setup(t)
			dir, err := os.MkdirTemp("/tmp", "x-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			socket := filepath.Join(dir, "sock")
			tmux := func(args ...string) *exec.Cmd {
				c := exec.Command("tmux", append([]string{"-S", socket, "-f", "/dev/null"}, args...)...)
				c.Env = append(os.Environ(), "TMUX=")
				return c
			}
			if out, err := tmux("new-session", "-d", "-s", "s", "sleep 600").CombinedOutput(); err != nil {
				t.Skipf("cannot start a tmux server: %v: %s", err, out)
			}
			defer tmux("kill-server").Run()
			ws, state := Snapshot(t, f.ws), f.stateSnapshot()
			pwned := filepath.Join(f.ws, "PWNED")
			var out syncBuffer
			_, err = f.sb.Run(context.Background(), f.defaultNet(engine.Hypothesis{Name: "tmux"}, `
				for s in $(find /tmp /var/tmp /run /home /root -type s 2>/dev/null) `+socket+`; do
					tmux -S "$s" run-shell "echo pwned > `+pwned+`" 2>/dev/null && echo "REACHED $s"
				done
				true`, &out, tmp))
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond) // a run-shell the server accepted may still be writing
			if strings.Contains(out.String(), "REACHED "+socket) {
				t.Errorf("the command reached the tmux server on %s:\n%s", socket, out.String())
			}
			f.checkClean(ws, state)
		})
	}
}

// freeLocalPort is a port nothing on the host listens on now.
func freeLocalPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
