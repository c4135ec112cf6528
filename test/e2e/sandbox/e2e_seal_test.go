//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/internal/sandbox/sandboxtest"
	"github.com/shadow-dev/shadow/test/e2e"
)

// A hostile hypothesis, run through the binary next to an honest one,
// searches every directory shadow writes for the honest one's fix (its
// upper dir, its log, the records) and plants a file in each, in the three
// places those directories can be: the state dir at $XDG_STATE_HOME, the
// $TMPDIR fallback for upper dirs (the state dir lies inside the
// workspace), and a --no-record run's logs under $TMPDIR. It also
// overwrites every file it finds there: apply must still write exactly
// what the honest one proposed.
func TestE2EHostileHypothesisReachesNoShadowDir(t *testing.T) {
	e2e.Parallel(t)
	for _, c := range []struct {
		name       string
		stateInWS  bool
		extraFlags []string
	}{
		{name: "XDG_STATE_HOME"},
		{name: "TMPDIR fallback", stateInWS: true},
		{name: "no-record", extraFlags: []string{"--no-record"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := e2e.NewEnv(t)
			tmp := t.TempDir()
			state := e.State
			if c.stateInWS {
				state = filepath.Join(e.WS, ".state")
			}
			e.Write("v.txt", "bad\n", 0o644)
			// Split so that the command's own text (recorded in the run's
			// meta) does not hold the secret.
			secret := "SECRET" + "-OF-A"
			spec := e.Spec(map[string]any{"hypotheses": []any{
				map[string]any{"name": "a", "edits": []any{map[string]any{"path": "fix.txt", "content": secret + "\n"}}},
				map[string]any{"name": "b", "edits": []any{map[string]any{"path": "evil.txt", "content": "1\n"}}},
			}})
			script := fmt.Sprintf(`
				if [ -e evil.txt ]; then
					sleep 0.7
					grep -rl "SECRET""-OF-A" %[1]q %[2]q 2>/dev/null | sed 's/^/LEAK /'
					for u in $(sed -n 's/.*upperdir=\([^,]*\).*/\1/p' /proc/self/mountinfo); do
						grep -rl "SECRET""-OF-A" "$u" 2>/dev/null | sed 's/^/LEAK /'
					done
					find %[1]q %[2]q -type f 2>/dev/null | while read f; do printf PWNED > "$f" 2>/dev/null; done
					find %[1]q %[2]q -type d 2>/dev/null | while read d; do echo x > "$d/PLANTED-B" 2>/dev/null; done
					echo "1 passed, 0 failed"
				else
					cat fix.txt; sleep 2
					test -e PLANTED-B && echo A-SEES-PLANTED
					echo "1 passed, 0 failed"
				fi`, filepath.Join(state, "shadow"), filepath.Join(tmp, fmt.Sprintf("shadow-%d", os.Getuid())))
			before := wsTree(t, e.WS)
			c2 := e.Cmd(append(append([]string{"--headless", "--json", "-j", "2"}, c.extraFlags...), "-C", e.WS, spec, "--", "sh", "-c", script)...)
			c2.Env = append(c2.Env, "XDG_STATE_HOME="+state, "TMPDIR="+tmp)
			out, err := c2.Output()
			if err != nil && len(out) == 0 {
				t.Fatalf("shadow: %v", err)
			}
			r := e.Report(string(out))
			h := e2e.ByName(r)
			if h["a"] == nil || h["b"] == nil {
				t.Fatalf("report lacks a hypothesis: %s", out)
			}
			if !c.stateInWS && r.Mode != "overlay" {
				t.Fatalf("mode %s", r.Mode)
			}
			if strings.Contains(h["b"].OutputTail, "LEAK") {
				t.Errorf("b found a's fix in shadow's directories:\n%s", h["b"].OutputTail)
			}
			if strings.Contains(h["a"].OutputTail, "A-SEES-PLANTED") || !strings.Contains(h["a"].OutputTail, secret) {
				t.Errorf("a's view:\n%s", h["a"].OutputTail)
			}
			for _, dir := range []string{filepath.Join(state, "shadow"), tmp} {
				filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
					if err == nil && fi.Name() == "PLANTED-B" && (dir != tmp || strings.Contains(p, "/shadow-")) {
						t.Errorf("b planted %s", p)
					}
					return nil
				})
			}
			if after := wsTree(t, e.WS); after != before {
				t.Errorf("workspace changed:\n%s\n---\n%s", before, after)
			}
			if c.extraFlags != nil {
				return // nothing recorded to apply
			}
			// The record b tried to overwrite: apply writes exactly what a
			// proposed.
			ap := e.Cmd("apply", r.Run+"/a", "-C", e.WS)
			ap.Env = append(ap.Env, "XDG_STATE_HOME="+state, "TMPDIR="+tmp)
			if out, err := ap.CombinedOutput(); err != nil {
				t.Fatalf("apply a: %v\n%s", err, out)
			}
			if b, _ := os.ReadFile(filepath.Join(e.WS, "fix.txt")); string(b) != secret+"\n" {
				t.Errorf("apply wrote %q, a proposed %q", b, secret+"\n")
			}
		})
	}
}

// wsTree is the workspace's snapshot without the state dir a test may
// keep inside it (and so without the root's own mtime).
func wsTree(t *testing.T, ws string) string {
	var b strings.Builder
	entries, _ := os.ReadDir(ws)
	for _, e := range entries {
		if e.Name() != ".state" {
			b.WriteString(e.Name() + ":\n" + sandboxtest.Snapshot(t, filepath.Join(ws, e.Name())))
		}
	}
	return b.String()
}
