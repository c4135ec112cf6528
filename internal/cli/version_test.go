package cli

import (
	"runtime"
	"strings"
	"testing"
)

// shadow version names the VCS revision (or says why there is none) and
// the Go toolchain; --version says the same.
func TestVersionNamesTheRevision(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, _, err := execCLI("", args...)
		if err != nil || !strings.HasPrefix(out, "shadow test (") || !strings.Contains(out, runtime.Version()) ||
			!strings.Contains(out, "revision") {
			t.Errorf("%v: %v %q", args, err, out)
		}
	}
}

// An unknown topic of `shadow help` is a usage error (exit 2: docs/cli.md,
// "Exit codes") naming the commands; known topics still print help.
func TestHelpUnknownTopicExits2(t *testing.T) {
	_, _, err := execCLI("", "help", "nosuch")
	if code(err) != 2 || !strings.Contains(err.Error(), `no command "nosuch"`) || !strings.Contains(err.Error(), "apply") {
		t.Errorf("help nosuch: exit %d, %v", code(err), err)
	}
	if out, _, err := execCLI("", "help", "apply"); err != nil || !strings.Contains(out, "shadow apply") {
		t.Errorf("help apply: %v %q", err, out)
	}
}
