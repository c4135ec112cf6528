//go:build linux

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/overlay"
)

// TestProbeCLIAndMCPGiveOneAnswer: `shadow probe` and the MCP tool
// shadow_probe print the same explanation (internal/sandbox.Explain). With
// user namespaces forbidden (simulated), an auto run here uses copy mode:
// both must say so, with the same fallback and fix; the MCP tool once said
// "mode: inplace" and that runs fall back to in-place mode, which lowered
// an agent's isolation for a fallback that never happens.
func TestProbeCLIAndMCPGiveOneAnswer(t *testing.T) {
	e := newPlainEnv(t)
	e.extraEnv = []string{"SHADOW_TEST_NO_USERNS=1"}
	e.write("f.txt", "x\n", 0o644)

	c := e.cmd("probe")
	c.Dir = e.ws
	out, err := c.Output()
	if err != nil {
		t.Fatalf("shadow probe: %v", err)
	}
	c = e.cmd("probe", "--json")
	c.Dir = e.ws
	js, err := c.Output()
	if err != nil {
		t.Fatalf("shadow probe --json: %v", err)
	}
	var cli overlay.Verdict
	if err := json.Unmarshal(js, &cli); err != nil {
		t.Fatalf("shadow probe --json: %v\n%s", err, js)
	}

	m := newMCPEnv(t, e, e.ws)
	res := m.mustCall("shadow_probe", map[string]any{"fresh": true})
	if res.IsError {
		t.Fatalf("shadow_probe: %s", text(res))
	}
	mcpV := structured[overlay.Verdict](t, res)

	if cli.Mode != "copy" || mcpV.Mode != "copy" {
		t.Errorf("mode: shadow probe %q, shadow_probe %q; want copy from both (an auto run here uses copy mode)", cli.Mode, mcpV.Mode)
	}
	if cli.Fix != mcpV.Fix || cli.Protection != mcpV.Protection || cli.Reason != mcpV.Reason {
		t.Errorf("fix/protection/reason differ:\nCLI: %+v\nMCP: %+v", cli, *mcpV)
	}
	if got := text(res); got != string(out) {
		t.Errorf("the texts differ:\n--- shadow probe\n%s--- shadow_probe\n%s", out, got)
	}
	for _, bad := range []string{"mode: inplace", "fall back to in-place", "--mode inplace"} {
		if strings.Contains(string(out), bad) || strings.Contains(text(res), bad) {
			t.Errorf("the probe says %q where an auto run uses copy mode:\n%s", bad, text(res))
		}
	}
}
