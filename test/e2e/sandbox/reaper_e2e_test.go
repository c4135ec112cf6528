//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/test/e2e"
)

// The process helper runs once per copy-mode and in-place hypothesis:
// its package's init function takes it over before the heavy packages it
// never uses are initialized (as the sandbox init does; see
// TestInitSkipsHeavyPackageInit). This fails if an import of
// internal/sandbox/reaper makes it wait for them.
func TestReaperSkipsHeavyPackageInit(t *testing.T) {
	// Started without its configuration, the helper fails at once (exit
	// 125) after its package init.
	assertSkipsHeavyInit(t, "shadow-reaper", "the process helper", 125)
}

// quietterm hides TERM while packages are initialized, and the helper
// takes over from its own package init, before main would put TERM back:
// the command must still see the caller's TERM.
func TestReaperCommandSeesTERM(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer statusR.Close()
	goR, goW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	goW.Write([]byte{1})
	goW.Close()
	c := exec.Command(exe)
	c.Args = []string{"shadow-reaper"}
	c.Dir = t.TempDir()
	c.Env = append(os.Environ(), "TERM=xterm-shadow-test", `SHADOW_REAPER={"argv":["sh","-c","echo TERM=$TERM"],"dir":"`+c.Dir+`"}`)
	c.ExtraFiles = []*os.File{statusW, goR}
	out, err := c.Output()
	statusW.Close()
	goR.Close()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.TrimSpace(string(out)) != "TERM=xterm-shadow-test" {
		t.Fatalf("the command saw %q, want TERM=xterm-shadow-test", out)
	}
}

// Every mode's command sees the caller's TERM: the overlay init and the
// process helper take over from package init functions, after quietterm
// hid it.
func TestE2ECommandSeesTERM(t *testing.T) {
	for _, mode := range []string{"overlay", "copy", "inplace"} {
		t.Run(mode, func(t *testing.T) {
			e := e2e.NewInplaceEnv(t)
			spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}}})
			out, stderr, _, _ := e.RunEnv([]string{"TERM=xterm-shadow-test"}, "--headless", "--json", "--mode", mode, "-C", e.WS, spec, "--",
				"sh", "-c", `echo "TERM=$TERM"; test "$TERM" = xterm-shadow-test`)
			r := e.Report(out)
			if r.Mode != mode {
				t.Skipf("%s mode is not available here (got %q): %s", mode, r.Mode, stderr)
			}
			if len(r.Hypotheses) != 1 || r.Hypotheses[0].Status != engine.StatusPassed {
				t.Fatalf("the command did not see TERM=xterm-shadow-test:\n%s\n%s", out, stderr)
			}
		})
	}
}
