package landlock

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSealedRootHasNoCapabilities: shadow run as root starts a sealed
// command with every capability set empty, the bounding set too; the
// routes a capability would open beside Landlock fail: chown of a file
// outside its Write dirs (no Landlock right covers chown), a raw socket,
// a mount. The file outside keeps its owner.
func TestSealedRootHasNoCapabilities(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a user's command has no capability to drop: this route is root's")
	}
	if abi, why := Status(); abi == 0 {
		t.Skip("no Landlock here: " + why)
	}
	top := t.TempDir()
	w := filepath.Join(top, "w")
	outside := filepath.Join(top, "outside.txt")
	if err := os.Mkdir(w, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Policy{Write: []string{w}, Devices: DefaultDevices}
	script := `
grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status | grep -v '0000000000000000$' && echo BREACH:caps
chown 65534 ` + outside + ` 2>/dev/null && echo BREACH:chown
mkdir ` + w + `/m && mount -t tmpfs none ` + w + `/m 2>/dev/null && { umount ` + w + `/m; echo BREACH:mount; }
python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)' 2>/dev/null && echo BREACH:raw-socket
echo own > ` + w + `/own.txt || echo FAIL:own-write
exit 0`
	out := filepath.Join(top, "out")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	pid, _, err := ForkExecSealed(p, "/bin/sh", []string{"sh", "-c", script},
		&syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, f.Fd(), f.Fd()}})
	if err != nil {
		t.Fatal(err)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, _ := os.ReadFile(out)
	if strings.Contains(string(b), "BREACH") || strings.Contains(string(b), "FAIL") {
		t.Errorf("the sealed root command:\n%s", b)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(outside, &st); err != nil || st.Uid != 0 {
		t.Errorf("the file outside changed owner: uid %d", st.Uid)
	}
}
