//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// The sandbox init is this same binary re-executed once per hypothesis:
// it must not pay for the packages only shadow's front ends use (the
// TUI's chroma lexer registry alone is ~12 ms and 2.7 MB per process).
// overlay/nsinit takes the process over from its package init function,
// before those are initialized; this fails if an import makes nsinit wait
// for them (Go initializes a package once its imports are) or the
// dispatch moves back into main.
func TestInitSkipsHeavyPackageInit(t *testing.T) {
	// Started without its descriptors, the init fails at once after its
	// package init.
	assertSkipsHeavyInit(t, "shadow-sandbox-init", "the sandbox init", -1)
}

// assertSkipsHeavyInit starts this binary as arg0 with
// GODEBUG=inittrace=1, which lists every package initialized until it
// exits (runtime(3): one "init PKG @..." line each), and fails if one of
// the front ends' heavy packages is among them. wantExit -1 takes any
// exit.
func assertSkipsHeavyInit(t *testing.T, arg0, who string, wantExit int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe)
	c.Args = []string{arg0}
	c.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var errb bytes.Buffer
	c.Stderr = &errb
	err = c.Run()
	if ee, ok := err.(*exec.ExitError); wantExit >= 0 && (!ok || ee.ExitCode() != wantExit) {
		t.Fatalf("%s: %v (want exit %d)\n%s", who, err, wantExit, errb.String())
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
				t.Errorf("%s initialized %s before taking over", who, p)
			}
		}
	}
}

// --upper ram end to end: each hypothesis gets its own capped tmpfs; the
// one that fills it fails with ENOSPC and a warning saying so in the
// report, the one that fits passes, and the checkout is untouched.
func TestUpperRAM(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("src.txt", "source\n", 0o644)
	before := e2e.Tree(t, e.WS)
	spec := e.Spec(map[string]any{"hypotheses": []map[string]any{
		{"name": "fits", "edits": []map[string]any{{"path": "size.txt", "content": "1048576\n"}}},
		{"name": "fills", "edits": []map[string]any{{"path": "size.txt", "content": "67108864\n"}}},
	}})
	out, errb, code := e.Shadow("--headless", "--json", "--upper", "ram", "--upper-size", "16M", "-C", e.WS, spec, "--",
		"sh", "-c", `mkdir -p build && head -c "$(cat size.txt)" /dev/zero > build/out.bin`)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errb, out)
	}
	hs := e2e.ByName(e.Report(out))
	if h := hs["fits"]; h == nil || h.Status != "passed" {
		t.Errorf("fits: %+v", h)
	}
	h := hs["fills"]
	if h == nil || h.Status == "passed" || h.Error == nil || !strings.Contains(*h.Error, "ENOSPC") || !strings.Contains(*h.Error, "16.0 MiB cap") {
		t.Errorf("fills: %+v (error %v), want a failure whose error names ENOSPC and the cap", h, h.Error)
	}
	if after := e2e.Tree(t, e.WS); after != before {
		t.Errorf("checkout changed:\n%s\n%s", before, after)
	}
}
