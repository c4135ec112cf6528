package overlay

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/engine"
)

// The hypothesis's /dev holds the host's harmless nodes, each the same
// device (number, mode) and usable; as root they are nodes of its own
// tmpfs, not mounts (nsinit's minimalDev: one mknod each instead of a
// bind mount to make and tear down); /dev stays read-only.
func TestOverlayMinimalDevNodes(t *testing.T) {
	sb := needOverlay(t)
	ws := t.TempDir()
	want := ""
	for _, n := range []string{"null", "zero", "full", "random", "urandom"} {
		var st unix.Stat_t
		if err := unix.Stat("/dev/"+n, &st); err != nil {
			t.Skipf("/dev/%s: %v", n, err)
		}
		want += fmt.Sprintf("%s %x:%x %o\n", n, unix.Major(st.Rdev), unix.Minor(st.Rdev), st.Mode&0o777)
	}
	var out bytes.Buffer
	o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Env: os.Environ(), Output: &out, Hyp: engine.Hypothesis{Name: "h"},
		Command: []string{"sh", "-c", `
			for n in null zero full random urandom; do stat -c "$n %t:%T %a" /dev/$n; done
			echo x > /dev/null && head -c 4 /dev/zero | od -An -tx1 | tr -d ' \n' && echo
			head -c 8 /dev/urandom | wc -c
			grep -c ' /dev/\(null\|zero\|full\|random\|urandom\) ' /proc/self/mountinfo
			touch /dev/new 2>/dev/null && echo WRITABLE || echo read-only`}})
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("%v %+v\n%s", err, o, out.String())
	}
	mounts := "5"
	if os.Getuid() == 0 {
		mounts = "0"
	}
	if got := out.String(); got != want+"00000000\n8\n"+mounts+"\nread-only\n" {
		t.Errorf("inside:\n%s\nwant:\n%s00000000\n8\n%s\nread-only", got, want, mounts)
	}
}
