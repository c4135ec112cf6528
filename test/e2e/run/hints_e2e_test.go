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

// The hints a newcomer's first mistakes get, through the binary: a command
// that lives in the host's /tmp (private in each hypothesis), and a suite
// started from a subdirectory that must run at the root.
func TestE2EHintsForTmpAndSubdirectory(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("go.mod", "module x\n", 0o644)
	e.Write("sub/keep", "", 0o644)
	if out, err := exec.Command("git", "init", "-q", e.WS).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	host, err := os.MkdirTemp("", "shadow-hint-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(host) })
	script := filepath.Join(host, "run.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho 1 passed, 0 failed\n"), 0o755)
	spec := e.Spec(map[string]any{"hypotheses": []map[string]any{{"name": "baseline"}, {"name": "b", "delete": []string{"sub/keep"}}}})

	out, stderr, code := e.Shadow("--headless", "--no-record", "-C", e.WS, spec, "--", script)
	if code != 1 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	if want := "hint: " + script + " is under /tmp, which is private to each hypothesis (a fresh tmpfs): put it in the workspace, or pass --tmp shared"; !strings.Contains(out, want) {
		t.Errorf("no /tmp hint (%q):\n%s", want, out)
	}
	// With --tmp shared it runs.
	if out, stderr, code := e.Shadow("--headless", "--no-record", "--tmp", "shared", "-C", e.WS, spec, "--", script); code != 0 {
		t.Errorf("--tmp shared: exit %d\n%s%s", code, out, stderr)
	}

	// From sub/: the command runs in sub's counterpart, where go.mod is not.
	c := e.Cmd("--headless", "--no-record", spec, "--", "sh", "-c", "test -f go.mod || { echo 'go: cannot find main module'; exit 1; }")
	c.Dir = filepath.Join(e.WS, "sub")
	b, _ := c.CombinedOutput()
	if !strings.Contains(string(b), "the command ran in sub/, the counterpart of the directory shadow was started in") || !strings.Contains(string(b), "cd "+e.WS) {
		t.Errorf("no subdirectory hint:\n%s", b)
	}
}
