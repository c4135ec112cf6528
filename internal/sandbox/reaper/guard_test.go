//go:build linux || darwin

package reaper

import (
	"context"
	"strings"
	"testing"
)

// A binary re-executed as the helper that does not dispatch MaybeHelper
// sees the helper's configuration in its environment; Run must refuse
// instead of re-executing again (a test binary without it once grew a
// chain of hundreds of helpers, each running the tests anew).
func TestRunRefusesInsideAnUndispatchedHelper(t *testing.T) {
	t.Setenv(helperEnv, `{"argv":["true"]}`)
	_, err := Run(context.Background(), Command{Argv: []string{"true"}, Dir: t.TempDir()}, nil)
	if err == nil || !strings.Contains(err.Error(), "MaybeHelper") {
		t.Fatalf("Run inside an undispatched helper: err = %v, want a refusal naming MaybeHelper", err)
	}
}
