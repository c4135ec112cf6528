package reaper

import (
	"bytes"
	"context"
	"testing"
)

// The command runs as the same uid as the helper and shadow, with no
// namespace: it must not be able to reach the status channel through
// /proc/PID/fd (which reopens a pipe in whatever mode is asked) of its
// parent, the helper, or of its grandparent, shadow, and forge the
// report: here a failing command claims it exited 0.
func TestCommandCannotForgeTheHelpersStatus(t *testing.T) {
	for _, tc := range []struct{ name, script string }{
		{"helper", `trap "" PIPE; for f in /proc/$PPID/fd/*; do printf '{"exit":0}\n' >"$f"; done 2>/dev/null; exit 1`},
		{"shadow", `trap "" PIPE; gp=$(awk '{print $4}' /proc/$PPID/stat); for f in /proc/$gp/fd/*; do case "$(readlink "$f")" in pipe:*) printf '{"exit":0}\n' >"$f";; esac; done 2>/dev/null; exit 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			st, err := Run(context.Background(), Command{Argv: []string{"sh", "-c", tc.script}, Dir: t.TempDir(), Env: []string{"PATH=/usr/bin:/bin"}, Output: &out}, nil)
			if err != nil {
				t.Fatalf("Run: %v (a forged report spoiled the real one); output: %s", err, out.String())
			}
			if st == nil || st.Exit != 1 {
				t.Fatalf("status %+v, want the command's own exit 1", st)
			}
		})
	}
}
