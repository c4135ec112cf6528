package engine

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// embeddedRepo is the hostile candidate: a bare repository under another
// name than .git, whose config makes git take the directory above it for
// its work tree and run the candidate's program at every status.
func embeddedRepo(marker string) Hypothesis {
	exe := File{Path: "vendor/lib/fsmon.sh", Content: []byte("#!/bin/sh\ntouch " + marker + "\n"), Mode: 0o755}
	return Hypothesis{Name: "evil", Files: []File{
		file("vendor/lib/HEAD", "ref: refs/heads/main\n"),
		file("vendor/lib/config", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "+filepath.Join(filepath.Dir(marker), "ws", "vendor", "lib", "fsmon.sh")+"\n"),
		exe,
		file("vendor/lib/objects/info/packs", ""),
		file("vendor/lib/refs/heads/.keep", ""),
	}}
}

// The route is real: git run in the candidate's directory runs its
// fsmonitor program as the user. Applying it is refused without force
// (nothing written, the path named), written with it; a run marks it
// suspicious with the path named.
func TestApplyRefusesAnEmbeddedGitDir(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is needed: the test shows git running the candidate's program")
	}
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "calc.py"), []byte("x = 1\n"), 0o644)
	marker := filepath.Join(root, "ran")
	h := embeddedRepo(marker)
	orig := ReadOriginals(ws, []Hypothesis{h})

	_, err = ApplyHypothesis(ws, h, orig)
	var re *RiskyError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "vendor/lib/") || !strings.Contains(err.Error(), "core.fsmonitor") {
		t.Fatalf("apply: %v, want a refusal naming vendor/lib/ and core.fsmonitor", err)
	}
	if _, err := os.Lstat(filepath.Join(ws, "vendor")); !os.IsNotExist(err) {
		t.Fatalf("a refused apply wrote vendor/: %v", err)
	}
	if err := CheckApply(ws, h, orig); !errors.As(err, &re) {
		t.Errorf("dry run: %v, want the same refusal", err)
	}

	if _, err := ApplyHypothesisWith(ws, h, orig, ApplyOptions{Force: true}); err != nil {
		t.Fatalf("forced apply: %v", err)
	}
	cmd := exec.Command(git, "status", "--porcelain")
	cmd.Dir = filepath.Join(ws, "vendor", "lib")
	cmd.Env = append(os.Environ(), "HOME="+root, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, _ := cmd.CombinedOutput()
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("git status did not run the candidate's fsmonitor (the route this refusal closes is not what the test thinks): %s", out)
	}

	// A run names it suspicious.
	sb := &fakeSandbox{out: map[string]string{"evil": "ok t\n"}}
	cfg, _ := testConfig(t, sb, h)
	rep := Run(context.Background(), cfg)
	r := rep.Hypotheses[0]
	if r.Suspicious == nil || !strings.Contains(*r.Suspicious, "vendor/lib/") || rep.Winner != nil {
		t.Errorf("suspicious %v, winner %v", r.Suspicious, rep.Winner)
	}
}

// --apply of a suspicious winner (--allow-suspicious lets it win) writes
// nothing: only an apply the user forced writes what git obeys.
func TestRunApplyNeverWritesAGitDir(t *testing.T) {
	h := embeddedRepo("/nonexistent/ran")
	sb := &fakeSandbox{out: map[string]string{"evil": "ok t\n"}}
	cfg, _ := testConfig(t, sb, h)
	cfg.AllowSuspicious, cfg.Apply = true, true
	rep := Run(context.Background(), cfg)
	if rep.Winner == nil || !strings.Contains(rep.ApplyError, "vendor/lib/") || len(rep.Applied) != 0 {
		t.Fatalf("winner %v apply error %q applied %v", rep.Winner, rep.ApplyError, rep.Applied)
	}
	if _, err := os.Lstat(filepath.Join(cfg.Workspace, "vendor")); !os.IsNotExist(err) {
		t.Errorf("--apply wrote vendor/: %v", err)
	}
}
