package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// A --json run that is refused must not leave stdout empty: it prints a JSON
// error object (docs/cli.md, "Exit codes") with the exit code, and stderr
// keeps the line for people. A run that ends with no winner prints its report,
// not this.
func TestRefusedJSONRunPrintsAnErrorObject(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for _, args := range [][]string{
		{"--json", "/nonexistent/spec.json", "--", "true"},
		{"--json", "--mode", "fast", "spec.json", "--", "true"},
		{"show", "--json", "@nosuch"},
	} {
		out, _, err := execCLI("", args...)
		var doc RefusalDoc
		if jerr := json.Unmarshal([]byte(out), &doc); jerr != nil || doc.Error == "" || doc.ExitCode != code(err) || doc.ExitCode == 0 {
			t.Errorf("%v: stdout %q (%v), exit %d", args, out, jerr, code(err))
		}
	}
	// Without --json, or with --json only in the command after --: nothing on stdout.
	for _, args := range [][]string{{"/nonexistent/spec.json", "--", "true"}, {"/nonexistent/spec.json", "--", "tool", "--json"}} {
		if out, _, _ := execCLI("", args...); strings.TrimSpace(out) != "" {
			t.Errorf("%v: stdout %q", args, out)
		}
	}
}
