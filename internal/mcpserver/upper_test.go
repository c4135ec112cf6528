package mcpserver

import (
	"path/filepath"
	"strings"
	"testing"
)

// upper, upper_size and no_warm are shadow_run options as --upper,
// --upper-size and --no-warm are the CLI's: refusals come from the plan's
// own checks, so an agent reads what a user reads.
func TestRunUpperReachesThePlan(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	cs := connect(t, New(ws, "test", nil))
	ok := []any{map[string]any{"name": "a"}}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"upper": "floppy"}, `upper: "floppy": want disk or ram`},
		{map[string]any{"upper_size": "lots"}, `upper_size: "lots"`},
		{map[string]any{"upper_size": "1G"}, "--upper-size caps a RAM upper"},
		{map[string]any{"upper": "ram", "mode": "inplace"}, "--upper ram: --mode inplace has no upper dirs"},
		{map[string]any{"no_warm": "yes"}, "no_warm: must be true or false"},
	} {
		c.args["hypotheses"], c.args["command"] = ok, []string{"true"}
		res := callTool(t, cs, "shadow_run", c.args)
		if !res.IsError || !strings.Contains(resultText(res), c.want) {
			t.Errorf("%v: %v %s, want %q", c.args, res.IsError, resultText(res), c.want)
		}
	}
	// Accepted where it means something: an in-place run without a warm
	// layer passes.
	res := callTool(t, cs, "shadow_run", map[string]any{"hypotheses": ok, "command": []string{"true"}, "mode": "inplace", "no_warm": true})
	if res.IsError {
		t.Errorf("no_warm in place: %s", resultText(res))
	}
}
