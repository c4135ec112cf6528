//go:build linux

package sandbox

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// hoardScript is the command of every hypothesis; role.txt, which each
// hypothesis writes, picks what it does. "hoard" opens as many idle
// connections to its HTTP proxy as it can (from two processes, past its
// own descriptor limit) and holds them; "wait" sleeps so that "sibling"
// starts while the hoarder holds them; "sibling" asks its own proxy for
// a CONNECT the proxy answers itself (502: this host is refused), which
// needs a descriptor of shadow's.
const hoardScript = `import os, resource, socket, sys, time
role = open("role.txt").read().strip()
host, port = os.environ["HTTP_PROXY"].split("//")[1].rstrip("/").rsplit(":", 1)
port = int(port)
if role == "hoard":
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    pid = os.fork()
    socks, fails = [], 0
    while fails < 5 and len(socks) < 1800:
        try:
            socks.append(socket.create_connection((host, port), timeout=0.3))
            fails = 0
        except OSError:
            fails += 1
    print("held", len(socks), flush=True)
    time.sleep(7)
    if pid:
        os.waitpid(pid, 0)
        print("1 passed, 0 failed")
    sys.exit(0)
if role == "wait":
    time.sleep(3)
    print("1 passed, 0 failed")
    sys.exit(0)
s = socket.create_connection((host, port), timeout=10)
s.settimeout(10)
s.sendall(b"CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n")
line = s.makefile("rb").readline().decode()
ok = " 502 " in line
print("proxy said", line.strip())
print("1 passed, 0 failed" if ok else "0 passed, 1 failed")
sys.exit(0 if ok else 1)
`

// One hypothesis holding every idle connection it can open to its proxy
// (each one a descriptor of shadow's) beside a sibling that starts while
// they are held: the sibling starts, reaches its own proxy and passes.
// shadow runs with 2,048 descriptors, so that the hoarder's ~3,600
// attempts would exhaust it without the per-hypothesis share (before:
// the sibling failed to start, `too many open files`).
func TestE2EProxyConnectionHoarderLeavesSiblingsTheirDescriptors(t *testing.T) {
	needPython3(t)
	e := e2e.NewEnv(t)
	e.Write("net.py", hoardScript, 0o644)
	role := func(name string) map[string]any {
		return map[string]any{"name": name, "edits": []any{e2e.Edit("role.txt", name+"\n")}}
	}
	spec := e.Spec(map[string]any{"hypotheses": []any{role("hoard"), role("wait"), role("sibling")}})
	c := e.Cmd("--headless", "--json", "-j", "2", "--mode", "overlay", "-C", e.WS, spec, "--", "python3", "net.py")
	// ulimit -n sets the soft and the hard limit: the Go runtime cannot
	// raise it back.
	c.Args = append([]string{"sh", "-c", `ulimit -n 2048 && exec "$0" "$@"`, c.Path}, c.Args[1:]...)
	c.Path, _ = exec.LookPath("sh")
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	_ = c.Run()
	rep := e.Report(out.String())
	h := e2e.ByName(rep)
	if h["sibling"].Status != "passed" {
		why := ""
		if h["sibling"].Error != nil {
			why = *h["sibling"].Error
		}
		t.Fatalf("the sibling: %s (%s)\n%s\nstderr: %s", h["sibling"].Status, why, h["sibling"].OutputTail, errb.String())
	}
	if h["hoard"].Status != "passed" || !strings.Contains(h["hoard"].OutputTail, "held") {
		t.Errorf("the hoarder: %s\n%s", h["hoard"].Status, h["hoard"].OutputTail)
	}
	t.Logf("hoarder: %s", h["hoard"].OutputTail)
}
