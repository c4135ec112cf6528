//go:build linux

package sandbox

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/test/e2e"
)

// TestProbeCLIAndMCPGiveOneAnswer: `shadow probe` and the MCP tool
// shadow_probe print the same explanation (internal/sandbox.Explain). With
// user namespaces forbidden (simulated), an auto run here uses copy mode:
// both must say so, with the same fallback and fix; the MCP tool once said
// "mode: inplace" and that runs fall back to in-place mode, which lowered
// an agent's isolation for a fallback that never happens.
func TestProbeCLIAndMCPGiveOneAnswer(t *testing.T) {
	e := e2e.NewPlainEnv(t)
	e.ExtraEnv = []string{"SHADOW_TEST_NO_USERNS=1"}
	e.Write("f.txt", "x\n", 0o644)

	c := e.Cmd("probe")
	c.Dir = e.WS
	out, err := c.Output()
	if err != nil {
		t.Fatalf("shadow probe: %v", err)
	}
	c = e.Cmd("probe", "--json")
	c.Dir = e.WS
	js, err := c.Output()
	if err != nil {
		t.Fatalf("shadow probe --json: %v", err)
	}
	var cli overlay.Verdict
	if err := json.Unmarshal(js, &cli); err != nil {
		t.Fatalf("shadow probe --json: %v\n%s", err, js)
	}

	m := e2e.NewMCPEnv(t, e, e.WS)
	res := m.MustCall("shadow_probe", map[string]any{"fresh": true})
	if res.IsError {
		t.Fatalf("shadow_probe: %s", e2e.Text(res))
	}
	mcpV := e2e.Structured[overlay.Verdict](t, res)

	if cli.Mode != "copy" || mcpV.Mode != "copy" {
		t.Errorf("mode: shadow probe %q, shadow_probe %q; want copy from both (an auto run here uses copy mode)", cli.Mode, mcpV.Mode)
	}
	if cli.Fix != mcpV.Fix || cli.Protection != mcpV.Protection || cli.Reason != mcpV.Reason {
		t.Errorf("fix/protection/reason differ:\nCLI: %+v\nMCP: %+v", cli, *mcpV)
	}
	if got := e2e.Text(res); got != string(out) {
		t.Errorf("the texts differ:\n--- shadow probe\n%s--- shadow_probe\n%s", out, got)
	}
	for _, bad := range []string{"mode: inplace", "fall back to in-place", "--mode inplace"} {
		if strings.Contains(string(out), bad) || strings.Contains(e2e.Text(res), bad) {
			t.Errorf("the probe says %q where an auto run uses copy mode:\n%s", bad, e2e.Text(res))
		}
	}
}
