package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// configRoot is a root command whose flags the command line args set, and
// the workspace holding .shadow.toml with body.
func configRoot(t *testing.T, body string, args ...string) (*cobra.Command, *runFlags, string) {
	t.Helper()
	ws := t.TempDir()
	if body != "" {
		if err := os.WriteFile(filepath.Join(ws, ConfigFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var f runFlags
	c := &cobra.Command{Use: "shadow"}
	f.register(c.Flags())
	if err := c.Flags().Parse(args); err != nil {
		t.Fatal(err)
	}
	return c, &f, ws
}

func TestConfigFileSetsFlagsTheCommandLineDidNot(t *testing.T) {
	c, f, ws := configRoot(t, `
jobs = 3
timeout = "90s"
net = "host"
baseline = true
quiet = true
copy-skip = ["node_modules", "target"]
host-port = [5432]
`, "--net", "isolated")
	path, set, err := applyConfig(c.Flags(), ws, ws)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(ws, ".shadow.toml") {
		t.Errorf("path %q", path)
	}
	o := f.opts
	if o.Jobs != 3 || o.Timeout != 90*time.Second || !o.Baseline || !f.quiet {
		t.Errorf("jobs %d timeout %v baseline %v quiet %v", o.Jobs, o.Timeout, o.Baseline, f.quiet)
	}
	if o.Net != "isolated" {
		t.Errorf("net %q: the command line's isolated must win over the file's host", o.Net)
	}
	if strings.Join(o.CopySkip, ",") != "node_modules,target" || len(o.HostPorts) != 1 || o.HostPorts[0] != 5432 {
		t.Errorf("copy-skip %v host-port %v", o.CopySkip, o.HostPorts)
	}
	if got := strings.Join(set, " "); strings.Contains(got, "--net") || !strings.Contains(got, "--jobs=3") {
		t.Errorf("set %q: what the file set, not what the command line did", got)
	}
}

func TestConfigFileAbsentOrRefused(t *testing.T) {
	c, _, ws := configRoot(t, "")
	if path, set, err := applyConfig(c.Flags(), ws, ws); path != "" || set != nil || err != nil {
		t.Errorf("no file: %q %v %v", path, set, err)
	}
	for body, want := range map[string]string{
		"jbos = 2":            `unknown key "jbos": did you mean "jobs"?`,
		"colour = 1":          `unknown key "colour": did you mean "color"?`,
		"zzz = 1":             `unknown key "zzz" (the keys are the run flags' long names`,
		"apply = true":        "apply cannot be set here: a run writes the checkout only when the command line asks",
		"json = true":         "json cannot be set here",
		"dir = \"/\"":         "dir cannot be set here",
		"patch = \"x.diff\"":  "patch cannot be set here",
		"mode = \"fast\"":     `mode = "fast": want auto, overlay, copy or inplace`,
		"mode = [\"copy\"]":   "mode: a list, but --mode takes one value",
		"jobs = 1.5":          "jobs: want true/false, a number or a string",
		"jobs = ":             "toml: line 1",
		"[net]\nmode = \"x\"": "net: want true/false, a number or a string",
	} {
		c, f, ws := configRoot(t, body)
		_, _, err := applyConfig(c.Flags(), ws, ws)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), ConfigFile) {
			t.Errorf("%q: %v, want %q naming the file", body, err, want)
		}
		if code(err) != 2 {
			t.Errorf("%q: exit %d, want 2", body, code(err))
		}
		if f.opts.Apply || f.json {
			t.Errorf("%q: a refused file set flags", body)
		}
	}
}

// The file is read from the workspace root (the git top-level), not the
// current directory, so a run from a subdirectory uses it too.
func TestConfigFileAtTheWorkspaceRoot(t *testing.T) {
	c, f, ws := configRoot(t, "jobs = 2")
	sub := filepath.Join(ws, "pkg", "deep")
	os.MkdirAll(sub, 0o755)
	gitInit(t, ws)
	if _, _, err := applyConfig(c.Flags(), "", sub); err != nil || f.opts.Jobs != 2 {
		t.Errorf("from %s: jobs %d, %v", sub, f.opts.Jobs, err)
	}
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Skipf("git init: %v\n%s", err, out)
	}
}
