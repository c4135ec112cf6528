package reaper

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The command runs as the same uid as the helper and shadow, with no
// namespace: it must not reach the helper's descriptors or the status
// channel through /proc/PID/fd (which reopens a pipe in whatever mode is
// asked) of its parent, the helper, or of its grandparent, shadow. Here a
// failing command writes a report claiming exit 0 into every pipe it
// finds there, among them, in the helper, the pipe ForkExec reads the
// exec's errno from (a forged errno made the helper think the command
// never started and exit without ending its tree, so a daemon it started
// lived on: in in-place mode, past the restore). Run several times: the
// forgery races the helper.
func TestCommandCannotForgeTheHelpersStatus(t *testing.T) {
	for _, tc := range []struct{ name, forge string }{
		{"helper", `for f in /proc/$PPID/fd/*; do printf '{"exit":0}\n' >"$f"; done`},
		{"shadow", `gp=$(awk '{print $4}' /proc/$PPID/stat); for f in /proc/$gp/fd/*; do case "$(readlink "$f")" in pipe:*) printf '{"exit":0}\n' >"$f";; esac; done`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i < 8; i++ {
				marker := fmt.Sprintf("shadow-forge-%d-%s-%d", os.Getpid(), tc.name, i)
				script := `trap "" PIPE; setsid sh -c 'sleep 300; : ` + marker + `' </dev/null >/dev/null 2>&1 & ` + tc.forge + ` 2>/dev/null; exit 1`
				var out bytes.Buffer
				st, err := Run(context.Background(), Command{Argv: []string{"sh", "-c", script}, Dir: t.TempDir(), Env: []string{"PATH=/usr/bin:/bin"}, Output: &out}, nil)
				if left := killMarked(marker); left > 0 {
					t.Fatalf("round %d: %d of the command's processes outlived the helper (Run: %v)", i, left, err)
				}
				if os.Geteuid() == 0 {
					// A root command without a namespace keeps
					// CAP_SYS_PTRACE: /proc/PID/fd of anything is
					// open to it (docs/internals.md: Limits). Only the tree's
					// end is checked then.
					continue
				}
				if err != nil {
					t.Fatalf("round %d: Run: %v (a forged report or errno spoiled the real one)", i, err)
				}
				if st == nil || st.Exit != 1 {
					t.Fatalf("round %d: status %+v, want the command's own exit 1", i, st)
				}
			}
		})
	}
}

// killMarked kills the processes whose command line holds marker and
// says how many there were.
func killMarked(marker string) int {
	n := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.Contains(string(b), marker) {
			n++
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return n
}
