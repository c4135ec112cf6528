package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/internal/run"
)

// TestExitCodeMapsEveryEnding: each way a command can end maps to the code
// docs/cli.md promises, with the line on stderr only where the command has
// not said it already.
func TestExitCodeMapsEveryEnding(t *testing.T) {
	env := run.Env("--mode overlay: overlay mode is not available")
	env.Reason, env.Fix = "user namespaces are blocked", "run with --mode copy"
	cases := []struct {
		name   string
		err    error
		code   int
		stderr string // "" : nothing
	}{
		{"winner", nil, 0, ""},
		{"none passed", &ExitError{Code: 1}, 1, ""},
		{"gc could not remove all", &ExitError{Code: 3}, 3, ""},
		{"interrupted run that said so", &ExitError{Code: run.ExitInterrupted}, 130, ""},
		{"command line", &ArgError{Msg: "unknown flag --bogus", Command: "log"}, 2, "shadow: unknown flag --bogus\nsee `shadow log -h`\n"},
		{"spec refused", run.Usage("hypothesis %q: name: duplicate name", "a"), 2, "shadow: hypothesis \"a\": name: duplicate name\n"},
		{"environment", env, 3, "shadow: --mode overlay: overlay mode is not available: user namespaces are blocked\nfix: run with --mode copy\n"},
		{"wrapped refusal", fmt.Errorf("plan: %w", run.Usage("bad")), 2, "shadow: bad\n"},
		{"interrupted", context.Canceled, 130, "shadow: interrupted\n"},
		{"interrupted, wrapped", fmt.Errorf("run: %w", context.Canceled), 130, "shadow: interrupted\n"},
		{"unforeseen", errors.New("disk on fire"), 3, "shadow: disk on fire\n"},
	}
	for _, c := range cases {
		var b bytes.Buffer
		if got := ExitCode(c.err, &b); got != c.code || b.String() != c.stderr {
			t.Errorf("%s: ExitCode = %d, stderr %q; want %d, %q", c.name, got, b.String(), c.code, c.stderr)
		}
	}
	if ExitCode(errors.New("x"), nil) != run.ExitEnv {
		t.Error("a nil stderr must not panic")
	}
}

// TestExitCodeOfCommands: real command lines through Execute and ExitCode,
// as main runs them.
func TestExitCodeOfCommands(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"version"}, 0, ""},
		{[]string{"--bogus-flag"}, 2, "shadow -h"},
		{[]string{"show"}, 2, "show"},
		{[]string{"--mode", "sideways", "spec.json", "--", "true"}, 2, "mode"},
	} {
		_, _, err := execCLI("", c.args...)
		var b bytes.Buffer
		if got := ExitCode(err, &b); got != c.code || !strings.Contains(b.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, got, b.String(), c.code, c.want)
		}
	}
}
