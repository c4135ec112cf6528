package mcpserver

import (
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/run"
)

// mcpCommon is the spec's "common" (docs/spec.md): edits, deletes and a
// patch every hypothesis gets, the baseline included; its files are the
// judge's.
type mcpCommon struct {
	Edits  []mcpEdit `json:"edits,omitempty" jsonschema:"files every hypothesis gets"`
	Delete []string  `json:"delete,omitempty" jsonschema:"paths deleted in every hypothesis"`
	Patch  string    `json:"patch,omitempty" jsonschema:"a diff applied in every hypothesis"`
}

// mcpRemoteNode is one entry of "remote" written as an object.
type mcpRemoteNode struct {
	Node string `json:"node" jsonschema:"an ssh destination (local: this machine)"`
	Jobs int    `json:"jobs,omitempty" jsonschema:"hypotheses at once on it"`
}

// runInputSchema is shadow_run's input schema: mcpRunArgs's, strict at
// every level, with the enums of the string options and "remote" entries
// that are a node's name or {node, jobs} (the spec accepts both; the
// inference typed them as strings only).
func runInputSchema() *jsonschema.Schema {
	sc := mustSchema[mcpRunArgs](map[string][]any{
		"mode": {string(run.ModeAuto), string(engine.ModeOverlay), string(engine.ModeCopy), string(engine.ModeInplace)}, "net": {"private", "isolated", "host"},
		"tmp": {"private", "shared"}, "upper": {"disk", "ram"}})
	// "remote" entries are typed as {node, jobs} objects: one type per
	// schema, since some MCP clients refuse anyOf (mcp_e2e_test.go's
	// portability rule). A bare string naming the node is accepted too,
	// as the description says.
	if r := sc.Properties["remote"]; r != nil {
		obj := mustSchema[mcpRemoteNode](nil)
		obj.Description = "a node {node, jobs}, or a plain string naming it"
		r.Items = obj
	}
	return sc
}
