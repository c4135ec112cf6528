package mcpserver

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
)

// maxToolsList bounds tools/list: a client puts it in the model's context
// on every session.
const maxToolsList = 25000

// tools/list stays under maxToolsList characters, compact and indented (it
// printed 89,145 indented when shadow_run and shadow_merge each carried the
// whole report's schema, 30,677 with a RunDoc and a LogDoc output schema);
// the figures and each tool's share are printed.
func TestToolsListIsSmall(t *testing.T) {
	cs := connect(t, New(t.TempDir(), "test", nil))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := json.Marshal(res)
	indented, _ := json.MarshalIndent(res, "", "  ")
	type share struct {
		name string
		n    int
	}
	var shares []share
	model := 0 // what a model's context gets: name, description, input schema
	for _, tool := range res.Tools {
		b, _ := json.Marshal(tool)
		shares = append(shares, share{tool.Name, len(b)})
		in, _ := json.Marshal(tool.InputSchema)
		model += len(tool.Name) + len(tool.Description) + len(in)
	}
	sort.Slice(shares, func(i, j int) bool { return shares[i].n > shares[j].n })
	t.Logf("tools/list: %d characters compact, %d indented, for %d tools; names, descriptions and input schemas %d", len(all), len(indented), len(res.Tools), model)
	for _, s := range shares {
		t.Logf("  %-14s %6d", s.name, s.n)
	}
	// Both forms: a client may put either in the context (the MCP
	// Inspector and some clients pretty-print, where indentation is a
	// third of the characters).
	if len(all) >= maxToolsList || len(indented) >= maxToolsList {
		t.Errorf("tools/list is %d characters compact, %d indented with 2 spaces: want both under %d", len(all), len(indented), maxToolsList)
	}
}
