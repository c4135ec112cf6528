//go:build linux

package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// With stdout on a terminal, headless machine output is exactly the
// document: no terminal query (bubbletea's init asks for the background
// colour and the cursor position, ESC ]11;? and ESC [6n) may precede it.
// script(1) gives the command a pty as stdout.
func TestE2EHeadlessOnATerminalSendsNoQueries(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) (util-linux) is not installed")
	}
	e := e2e.NewPlainEnv(t)
	exe, _ := os.Executable()
	spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "a"}}})
	typescript := filepath.Join(e.Dir, "typescript")
	for _, args := range []string{"--headless --json --mode inplace", "--headless --events --mode inplace", "version"} {
		line := exe + " " + args
		if args != "version" {
			line += " -C " + e.WS + " " + spec + " -- true"
		}
		c := exec.Command(script, "-qec", line, typescript)
		c.Env = append(os.Environ(), "SHADOW_E2E_MAIN=1", "XDG_STATE_HOME="+e.State, "TERM=xterm-256color")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", args, err, out)
		}
		b, _ := os.ReadFile(typescript)
		if strings.Contains(string(b), "\x1b") {
			t.Errorf("%s: escape sequences on the terminal: %q", args, b)
		}
	}
}
