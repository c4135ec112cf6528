package run

import (
	"errors"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/internal/sandbox"
	"github.com/shadow-dev/shadow/snap"
)

// The sandbox chooser's refusal is the run service's: one type
// (internal/refusal), so it reaches cli.ExitCode as exit code 3 with its
// message, reason and fix, whoever called sandbox.Open (a local run, a
// remote node), with nothing to translate on the way.
func TestSandboxRefusalIsARunError(t *testing.T) {
	_, err := sandbox.Open(sandbox.Config{Store: snap.Store{Root: t.TempDir()}, Workspace: t.TempDir(), Mode: "bogus"})
	var re *Error
	if !errors.As(err, &re) {
		t.Fatalf("sandbox.Open(--mode bogus): %T %v, want a *run.Error", err, err)
	}
	if re.Code != ExitEnv || !strings.Contains(re.Msg, "--mode bogus") {
		t.Errorf("refusal code %d msg %q, want %d naming --mode bogus", re.Code, re.Msg, ExitEnv)
	}
}
