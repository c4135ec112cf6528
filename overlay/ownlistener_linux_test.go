package overlay

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// A hypothesis's own server on a socket outside its mounts (the host's
// /tmp, --tmp shared) is reachable to its own clients, and sees exactly
// the connections they make: the guard finds the listener without
// connecting to it (a probe connection was a client that closed at once,
// which sccache's client took for its server's start-up report).
func TestOverlayOwnListenerSeesOnlyItsClients(t *testing.T) {
	sb := needOverlay(t)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	ws, dir := t.TempDir(), t.TempDir()
	sock := filepath.Join(dir, "own.sock")
	script := `
import os, socket, sys, threading
path = sys.argv[1]
srv = socket.socket(socket.AF_UNIX)
srv.bind(path)
srv.listen(8)
got = []
def serve():
    while True:
        c, _ = srv.accept()
        got.append(c.recv(16))
        c.close()
t = threading.Thread(target=serve, daemon=True)
t.start()
cl = socket.socket(socket.AF_UNIX)
cl.connect(path)
cl.sendall(b"hello")
cl.close()
import time
for _ in range(50):
    if got:
        break
    time.sleep(0.1)
time.sleep(0.5)
print("CONNECTIONS", len(got), got)
`
	if err := os.WriteFile(filepath.Join(ws, "own.py"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Hyp: engine.Hypothesis{Name: "own"}, Output: &out, Tmp: "shared",
		Env: []string{"PATH=/usr/bin:/bin"}, Command: []string{py, "own.py", sock}})
	if err != nil {
		t.Fatal(err)
	}
	if o.ExitCode != 0 || !strings.Contains(out.String(), "CONNECTIONS 1 [b'hello']") {
		t.Errorf("exit %d: the hypothesis's own server, want exactly its client's connection:\n%s", o.ExitCode, out.String())
	}
}
