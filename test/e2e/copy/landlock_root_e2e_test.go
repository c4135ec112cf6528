//go:build linux

package copy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// TestE2ELandlockRootDropsCapabilities: shadow run as root in copy mode
// where namespaces are forbidden (the jail, Docker's seccomp rules), on a
// checkout another user owns (a container run as root on a bind-mounted
// repository): the sealed command runs as uid 0 with no capability in any
// set, so the routes a capability opens beside Landlock fail (chown of the
// checkout, which no Landlock right covers; a raw socket), and it still
// builds in its copy (writes, creates, chmods its files: the copy is
// root's). Fails on a build that leaves root's capabilities.
func TestE2ELandlockRootDropsCapabilities(t *testing.T) {
	e2e.Parallel(t)
	if os.Geteuid() != 0 {
		t.Skip("capabilities are root's: run as root (CI's first pass)")
	}
	for _, how := range copyModes() {
		t.Run(how, func(t *testing.T) {
			e := newSealEnv(t, sealCase{how: how, root: true})
			user := newCopyEnv(t, how).cred // the checkout's owner
			e.write("a.txt", "original\n")
			_ = filepath.Walk(e.ws, func(p string, fi os.FileInfo, err error) error {
				if err == nil {
					_ = os.Lchown(p, int(user.Uid), int(user.Gid))
				}
				return nil
			})
			spec := e.spec("root.json", map[string]any{
				"hypotheses": []any{map[string]any{"name": "root", "edits": []any{map[string]any{"path": "h.txt", "content": "h\n"}}}},
				"env":        map[string]string{"SHADOW_E2E_TOP": e.top},
			})
			out, stderr, code := e.run("--headless", "--json", "--mode", "copy", spec, "--", "sh", "-c", `
b() { echo "BREACH:$1"; breach=1; }
breach=0
grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status | grep -v '0000000000000000$' && b caps
chown 65534 "$SHADOW_E2E_TOP/proj/a.txt" 2>/dev/null && b chown-checkout
python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)' 2>/dev/null && b raw-socket
echo built > a.txt && echo new > out.o && chmod +x out.o && mkdir -p build/x && touch -d 2001-01-01 h.txt || { echo "FAIL: the copy is not writable"; breach=1; }
exit $breach`)
			var r struct {
				Seal       string
				Hypotheses []struct {
					Name, Status string
					OutputTail   string `json:"output_tail"`
				}
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("exit %d: %v\n%s\n%s", code, err, out, stderr)
			}
			for _, h := range r.Hypotheses {
				if h.Status != "passed" {
					t.Errorf("%s %s:\n%s", h.Name, h.Status, h.OutputTail)
				}
			}
			if !strings.HasPrefix(r.Seal, "landlock abi ") {
				t.Errorf("seal %q", r.Seal)
			}
			var st syscall.Stat_t
			if err := syscall.Stat(filepath.Join(e.ws, "a.txt"), &st); err != nil || st.Uid != user.Uid {
				t.Errorf("the checkout's a.txt changed owner: uid %d", st.Uid)
			}
		})
	}
}
