package mcpserver

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
)

// docs/agents.md is the MCP contract: it names every tool the server
// lists, every field of the RunDoc a call returns and of shadow_log's
// result (it has no output schema), every shadow_wait
// argument and every resource template, so none goes undocumented.
func TestAgentsDocNamesTheContract(t *testing.T) {
	b, err := os.ReadFile("../../docs/agents.md")
	if err != nil {
		t.Skipf("docs/agents.md is not beside the source: %v", err)
	}
	doc := string(b)
	cs := connect(t, New(t.TempDir(), "test", nil))
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if !strings.Contains(doc, "| `"+tool.Name+"` |") {
			t.Errorf("docs/agents.md's tool table lacks %s", tool.Name)
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[RunDoc](), reflect.TypeFor[HypBrief](), reflect.TypeFor[BriefTests](), reflect.TypeFor[Links](), reflect.TypeFor[mcpWaitArgs](),
		reflect.TypeFor[LogDoc](), reflect.TypeFor[LogRun](), reflect.TypeFor[LogHyp]()} {
		for i := 0; i < typ.NumField(); i++ {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if !strings.Contains(doc, "`"+name+"`") {
				t.Errorf("docs/agents.md does not name %s's field %q", typ.Name(), name)
			}
		}
	}
	for _, rt := range resourceTemplates {
		uri := strings.NewReplacer("{run}", "ID", "{hyp}", "HYP").Replace(rt.URITemplate)
		if !strings.Contains(doc, "`"+uri+"`") {
			t.Errorf("docs/agents.md does not name the resource %s", uri)
		}
	}
}
