//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// The process helper runs once per copy-mode and in-place hypothesis:
// its package's init function takes it over before the heavy packages it
// never uses are initialized (as the sandbox init does; see
// TestInitSkipsHeavyPackageInit). This fails if an import of
// internal/reaper makes it wait for them.
func TestReaperSkipsHeavyPackageInit(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Started without its configuration, the helper fails at once after
	// its package init: GODEBUG=inittrace=1 lists every package
	// initialized until then (one "init PKG @..." line each).
	c := exec.Command(exe)
	c.Args = []string{"shadow-reaper"}
	c.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var errb bytes.Buffer
	c.Stderr = &errb
	err = c.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 125 {
		t.Fatalf("the helper without a configuration: %v (want exit 125)\n%s", err, errb.String())
	}
	var inited []string
	for _, l := range strings.Split(errb.String(), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "init" {
			inited = append(inited, f[1])
		}
	}
	if len(inited) == 0 {
		t.Fatalf("no inittrace output: %q", errb.String())
	}
	for _, p := range inited {
		for _, heavy := range []string{"github.com/alecthomas/chroma", "github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss",
			"github.com/shadow-dev/shadow/parse", "github.com/shadow-dev/shadow/tui", "github.com/shadow-dev/shadow/engine", "github.com/modelcontextprotocol/go-sdk/mcp", "github.com/google/jsonschema-go"} {
			if strings.HasPrefix(p, heavy) {
				t.Errorf("the process helper initialized %s before taking over", p)
			}
		}
	}
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
			e := newInplaceEnv(t)
			spec := e.spec(map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}}})
			out, stderr, _, _ := e.runEnv([]string{"TERM=xterm-shadow-test"}, "--headless", "--json", "--mode", mode, "-C", e.ws, spec, "--",
				"sh", "-c", `echo "TERM=$TERM"; test "$TERM" = xterm-shadow-test`)
			r := e.report(out)
			if r.Mode != mode {
				t.Skipf("%s mode is not available here (got %q): %s", mode, r.Mode, stderr)
			}
			if len(r.Hypotheses) != 1 || r.Hypotheses[0].Status != engine.StatusPassed {
				t.Fatalf("the command did not see TERM=xterm-shadow-test:\n%s\n%s", out, stderr)
			}
		})
	}
}
