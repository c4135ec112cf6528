package mcpserver

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// shadow_run's input schema (docs/agents.md, "The MCP contract") must name
// every field it accepts: one that forbade unknown fields but omitted common,
// or typed remote's objects as strings, refused valid calls. Every field the
// tool accepts (the spec's fields and the run-only ones) is in it, no other,
// it stays strict, and a remote entry may be a name or {node, jobs}.
func TestRunInputSchemaIsCompleteAndStrict(t *testing.T) {
	sc := runInputSchema()
	accepted := map[string]bool{}
	st := reflect.TypeOf(engine.Spec{})
	for i := 0; i < st.NumField(); i++ {
		if n, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ","); n != "" && n != "-" && n != "$schema" {
			accepted[n] = true
		}
	}
	for k := range runOnlyArgs {
		accepted[k] = true
	}
	var missing, extra []string
	for k := range accepted {
		if sc.Properties[k] == nil {
			missing = append(missing, k)
		}
	}
	for k := range sc.Properties {
		if !accepted[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing)+len(extra) > 0 {
		t.Errorf("shadow_run's input schema lacks %v, has unaccepted %v", missing, extra)
	}
	var strict func(path string, s *jsonschema.Schema)
	strict = func(path string, s *jsonschema.Schema) {
		if s == nil {
			return
		}
		if len(s.Properties) > 0 && (s.AdditionalProperties == nil || !reflect.DeepEqual(s.AdditionalProperties, &jsonschema.Schema{Not: &jsonschema.Schema{}})) {
			t.Errorf("%s: an object that allows unknown fields", path)
		}
		for k, p := range s.Properties {
			if p.Description == "" && path == "" {
				t.Errorf("%s: no description", k)
			}
			strict(path+"."+k, p)
		}
		strict(path+"[]", s.Items)
		for i, a := range s.AnyOf {
			strict(path+"|"+string(rune('0'+i)), a)
		}
	}
	strict("", sc)
	if c := sc.Properties["common"]; c == nil || c.Properties["edits"] == nil || c.Properties["patch"] == nil {
		t.Errorf("common is not typed: %+v", c)
	}
	rs, err := sc.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{
		`{"command":["true"],"hypotheses":[{"name":"a"}],"remote":[{"node":"build1"},{"node":"build2","jobs":4}]}`,
		`{"command":["true"],"hypotheses":[{"name":"a"}],"common":{"edits":[{"path":"t.py","content":"x"}],"patch":""}}`,
	} {
		var v any
		json.Unmarshal([]byte(doc), &v)
		if err := rs.Validate(v); err != nil {
			t.Errorf("%s: refused by the schema: %v", doc, err)
		}
	}
	for _, doc := range []string{
		`{"command":["true"],"hypotheses":[{"name":"a"}],"remote":[{"node":"b","cores":4}]}`,
		`{"command":["true"],"hypotheses":[{"name":"a"}],"nosuch":1}`,
	} {
		var v any
		json.Unmarshal([]byte(doc), &v)
		if err := rs.Validate(v); err == nil {
			t.Errorf("%s: accepted by the schema", doc)
		}
	}
}

// Every tool's output schema describes its fields, at every level.
func TestOutputSchemasHaveDescriptions(t *testing.T) {
	for name, sc := range map[string]*jsonschema.Schema{"shadow_run": outputSchema[RunDoc](), "shadow_apply": outputSchema[ApplyDoc]()} {
		var walk func(path string, s *jsonschema.Schema)
		walk = func(path string, s *jsonschema.Schema) {
			if s == nil {
				return
			}
			for k, p := range s.Properties {
				if p.Description == "" {
					t.Errorf("%s: %s%s has no description", name, path, k)
				}
				walk(path+k+".", p)
			}
			walk(path, s.Items)
		}
		walk("", sc)
	}
}

// A RunDoc's required arrays are never null, whatever it is made from (a
// report with no hypotheses, a record with no report, a run that has just
// started): its output schema types them as arrays alone
// (nullWhereCarried), and a client refuses a result its schema does not
// match.
func TestRequiredArraysAreNeverNull(t *testing.T) {
	rs, err := outputSchema[RunDoc]().Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]any{
		"an empty report":     briefOf(&engine.Report{Run: "r"}),
		"a record, no report": showRun(&snap.RunInfo{ID: "r", State: snap.StateInterrupted}).StructuredContent,
		"a run just started":  newLiveRun("/ws", func() {}).doc(),
	}
	for what, d := range docs {
		b, _ := json.Marshal(d)
		var v any
		json.Unmarshal(b, &v)
		if err := rs.Validate(v); err != nil {
			t.Errorf("%s: %s does not match the RunDoc's schema: %v", what, b, err)
		}
	}
	// and the schema does type them as arrays only
	sc := outputSchema[RunDoc]()
	if h := sc.Properties["hypotheses"]; h.Type != "array" || len(h.Types) != 0 {
		t.Errorf("hypotheses: type %q %v, want array alone", h.Type, h.Types)
	}
	if w := sc.Properties["winner"]; len(w.Types) != 2 {
		t.Errorf("winner: types %v, want null and string (no winner is null)", w.Types)
	}
}
