package docs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/shadow-dev/shadow/engine"
)

// The published contract (docs/*.md, docs/schema/*.json) is checked here
// against the code: every field the code writes or reads is in the
// schema and named in its doc, and the spec schema accepts and refuses
// what the loader does. docs_schema_e2e_test.go validates the built
// binary's real output against the same schemas.

const schemaBase = "https://raw.githubusercontent.com/shadow-dev/shadow/main/docs/schema/"

// compileSchema compiles docs/schema/NAME (the other schema files loaded
// too, so a $ref between them resolves), asserting formats (date-time).
func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	files, err := filepath.Glob("docs/schema/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no schema files in docs/schema: %v", err)
	}
	for _, f := range files {
		doc := readSchemaDoc(t, f)
		if id, _ := doc["$id"].(string); id != schemaBase+filepath.Base(f) {
			t.Errorf("%s: $id %q, want %q", f, id, schemaBase+filepath.Base(f))
		}
		if s, _ := doc["$schema"].(string); s != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema %q: the schemas are draft 2020-12", f, s)
		}
		if err := c.AddResource(schemaBase+filepath.Base(f), doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	sch, err := c.Compile(schemaBase + name)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return sch
}

func readSchemaDoc(t *testing.T, path string) map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: not an object", path)
	}
	return m
}

// validateJSON validates one JSON document against sch.
func validateJSON(sch *jsonschema.Schema, data []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// jsonFields are the JSON names of t's exported fields, and for each the
// field's type (pointers, slices and maps looked through).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice || ft.Kind() == reflect.Map {
			ft = ft.Elem()
		}
		out[name] = ft
	}
	return out
}

// schemaNode follows a local $ref ("#/$defs/x") or one into another
// schema file ("report.v1.json#/$defs/x") to the object it names.
func schemaNode(t *testing.T, docs map[string]map[string]any, file string, node map[string]any) (string, map[string]any) {
	t.Helper()
	for {
		ref, ok := node["$ref"].(string)
		if !ok {
			break
		}
		target, frag, _ := strings.Cut(ref, "#")
		if target != "" {
			file = target
		}
		node = docs[file]
		for _, p := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			if p == "" {
				continue
			}
			next, ok := node[p].(map[string]any)
			if !ok {
				t.Fatalf("%s: $ref %q does not resolve", file, ref)
			}
			node = next
		}
	}
	if _, ok := node["properties"]; ok {
		return file, node
	}
	// "items", and "oneOf": [X, {"type": "null"}] or [string, object],
	// lead to the object.
	if items, ok := node["items"].(map[string]any); ok {
		return schemaNode(t, docs, file, items)
	}
	if one, ok := node["oneOf"].([]any); ok {
		for _, alt := range one {
			if m, ok := alt.(map[string]any); ok {
				if f, n := schemaNode(t, docs, file, m); n["properties"] != nil {
					return f, n
				}
			}
		}
	}
	return file, node
}

// checkFieldsInSchema fails for every JSON field of typ (and, through its
// struct-typed fields, of the types under it) that node's properties do
// not name, and, when strict, for every property that is no field. It is
// what keeps a later field from going into the report undocumented.
func checkFieldsInSchema(t *testing.T, docs map[string]map[string]any, file string, node map[string]any, typ reflect.Type, where string, strict bool) {
	t.Helper()
	file, node = schemaNode(t, docs, file, node)
	props, _ := node["properties"].(map[string]any)
	fields := jsonFields(typ)
	for name, ft := range fields {
		p, ok := props[name].(map[string]any)
		if !ok {
			t.Errorf("%s: field %q (%s.%s) is missing from docs/schema/%s: document it there and in docs/*.md", where, name, typ.Name(), name, file)
			continue
		}
		if ft.Kind() == reflect.Struct && ft != reflect.TypeOf(struct{}{}) && ft.PkgPath() == typ.PkgPath() {
			checkFieldsInSchema(t, docs, file, p, ft, where+"."+name, strict)
		}
	}
	if strict {
		for name := range props {
			if _, ok := fields[name]; !ok {
				t.Errorf("%s: docs/schema/%s names %q, which %s does not have (the loader refuses it)", where, file, name, typ.Name())
			}
		}
	}
}

func schemaDocs(t *testing.T) map[string]map[string]any {
	docs := map[string]map[string]any{}
	for _, f := range []string{"report.v1.json", "event.v1.json", "spec.v1.json"} {
		docs[f] = readSchemaDoc(t, filepath.Join("docs", "schema", f))
	}
	return docs
}

// TestSchemaNamesEveryField: every JSON field of engine.Report (with
// Result, Tests, WarmLayer, NodeSync, OutsideWrite, ProposedTest, Cross,
// HypLimits under it) and of engine.Event is a property of its schema;
// the spec schema names exactly the fields of engine.Spec, no more (it is
// as strict as the loader).
func TestSchemaNamesEveryField(t *testing.T) {
	docs := schemaDocs(t)
	checkFieldsInSchema(t, docs, "report.v1.json", docs["report.v1.json"], reflect.TypeOf(engine.Report{}), "report", false)
	checkFieldsInSchema(t, docs, "event.v1.json", docs["event.v1.json"], reflect.TypeOf(engine.Event{}), "event", false)
	checkFieldsInSchema(t, docs, "spec.v1.json", docs["spec.v1.json"], reflect.TypeOf(engine.Spec{}), "spec", true)
	// The spec's additionalProperties is false at every level, as the
	// loader refuses unknown fields everywhere.
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch n := v.(type) {
		case map[string]any:
			if _, ok := n["properties"]; ok && isObjectType(n["type"]) && n["additionalProperties"] != false {
				t.Errorf("spec.v1.json %s: an object with properties must say additionalProperties: false (the loader refuses unknown fields)", path)
			}
			for k, c := range n {
				walk(path+"/"+k, c)
			}
		case []any:
			for i, c := range n {
				walk(fmt.Sprintf("%s/%d", path, i), c)
			}
		}
	}
	walk("#", docs["spec.v1.json"])
	// The report and event schemas are open to additions: readers must
	// ignore unknown fields, so the schema must not refuse them either.
	for _, f := range []string{"report.v1.json", "event.v1.json"} {
		if strings.Contains(mustJSON(t, docs[f]), `"additionalProperties":false`) {
			t.Errorf("%s says additionalProperties: false: v1 only adds fields, and a reader (or this schema) must accept them", f)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDocsNameEveryField: every report field is named (as `name`) in
// docs/report.md, every event field and kind in docs/events.md, every spec
// field in docs/spec.md.
func TestDocsNameEveryField(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var names func(typ reflect.Type, seen map[reflect.Type]bool) []string
	names = func(typ reflect.Type, seen map[reflect.Type]bool) []string {
		if seen[typ] {
			return nil
		}
		seen[typ] = true
		var out []string
		for name, ft := range jsonFields(typ) {
			out = append(out, name)
			if ft.Kind() == reflect.Struct && ft.PkgPath() == typ.PkgPath() && ft != reflect.TypeOf(engine.Report{}) && ft != reflect.TypeOf(engine.Result{}) {
				out = append(out, names(ft, seen)...)
			}
		}
		sort.Strings(out)
		return out
	}
	check := func(doc string, typ reflect.Type) {
		text := read(doc)
		for _, n := range names(typ, map[reflect.Type]bool{}) {
			// named in code spans (`name`, `{"a", "name"}`) or quoted
			if !regexp.MustCompile("`([^`]*[^A-Za-z0-9_`])?" + regexp.QuoteMeta(n) + "([^A-Za-z0-9_`][^`]*)?`|\"" + regexp.QuoteMeta(n) + "\"").MatchString(text) {
				t.Errorf("%s does not name the field %q of %s", doc, n, typ.Name())
			}
		}
	}
	check("docs/report.md", reflect.TypeOf(engine.Report{}))
	check("docs/report.md", reflect.TypeOf(engine.Result{}))
	check("docs/events.md", reflect.TypeOf(engine.Event{}))
	check("docs/spec.md", reflect.TypeOf(engine.Spec{}))
	events := read("docs/events.md")
	for _, k := range []string{engine.KindRunStarted, engine.KindHypStarted, engine.KindOutput, engine.KindTests, engine.KindHypFinished, engine.KindRunFinished} {
		if !strings.Contains(events, "`"+k+"`") {
			t.Errorf("docs/events.md does not name the kind %q", k)
		}
	}
}

// isObjectType: a schema's "type" is or includes "object".
func isObjectType(v any) bool {
	switch t := v.(type) {
	case string:
		return t == "object"
	case []any:
		for _, e := range t {
			if e == "object" {
				return true
			}
		}
	}
	return false
}

// firstJSONBlock is the first ```json block of a Markdown file after the
// line holding after ("" for the start).
func firstJSONBlock(t *testing.T, path, after string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if i := strings.Index(s, after); i >= 0 {
		s = s[i:]
	} else {
		t.Fatalf("%s: no %q", path, after)
	}
	_, s, ok := strings.Cut(s, "```json\n")
	if !ok {
		t.Fatalf("%s: no json block after %q", path, after)
	}
	s, _, _ = strings.Cut(s, "```")
	return []byte(s)
}

// TestSpecSchemaAgreesWithTheLoader: every spec the loader accepts, the
// schema accepts (the examples of the README and docs/spec.md, the
// engine's testdata, edge cases), and every refusal docs/spec.md says the
// schema can tell, the schema refuses too; those only the loader can tell
// are refused by the loader and accepted by the schema (so the list in
// docs/spec.md stays true).
func TestSpecSchemaAgreesWithTheLoader(t *testing.T) {
	sch := compileSchema(t, "spec.v1.json")
	sample, err := os.ReadFile("engine/spec/testdata/spec/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("n", 65)
	type tc struct {
		name         string
		spec         string
		loaderAccept bool
		schemaAccept bool
	}
	valid := func(name, spec string) tc { return tc{name, spec, true, true} }
	refused := func(name, spec string) tc { return tc{name, spec, false, false} }
	loaderOnly := func(name, spec string) tc { return tc{name, spec, false, true} }
	cases := []tc{
		valid("engine/spec/testdata/spec/sample.json", string(sample)),
		valid("README's example", string(firstJSONBlock(t, "README.md", "## A spec, by example"))),
		valid("docs/spec.md's example", string(firstJSONBlock(t, "docs/spec.md", ""))),
		valid("nulls are absent", `{"hypotheses":[{"name":"a","base":null,"edits":null,"delete":null,"patch":null}],"command":null,"timeout":null,"jobs":null,"env":{"A":null},"net":null,"tmp":null,"junit":null,"test_paths":null,"allow_test_edits":null,"confirm":null,"remote":null,"common":null}`),
		valid("empty settings are defaults", `{"hypotheses":[{"name":"a"}],"timeout":"","net":"","tmp":"","junit":"","jobs":0,"confirm":0}`),
		valid("an empty file beside content", `{"hypotheses":[{"name":"a","edits":[{"path":"x","file":"","content":"y","mode":""}]}]}`),
		valid("names and paths at the edges", `{"hypotheses":[{"name":"a.b_c-D9","edits":[{"path":".gitignore","content":""},{"path":".github/x/.../y","content":"","mode":"755"}],"delete":["ünï/cödé"]},{"name":"..."},{"name":"`+strings.Repeat("n", 64)+`"}]}`),
		valid("remote in both forms", `{"hypotheses":[{"name":"a"}],"remote":["n1","user@host",{"node":"n2","jobs":4},{"node":"n3"}]}`),
		valid("durations", `{"hypotheses":[{"name":"a"}],"timeout":"1h30m0.5s"}`),
		valid("test_paths and junit", `{"hypotheses":[{"name":"a"}],"test_paths":["**/*_test.go","tests/**"],"junit":"build/./r.xml","confirm":20}`),

		refused("unknown field", `{"hypotheses":[{"name":"a"}],"bogus":1}`),
		refused("unknown hypothesis field", `{"hypotheses":[{"name":"a","bogus":1}]}`),
		refused("a field named in another case", `{"hypotheses":[{"name":"a","Edits":[]}]}`),
		refused("unknown edit field", `{"hypotheses":[{"name":"a","edits":[{"path":"x","content":"","owner":"root"}]}]}`),
		refused("unknown common field", `{"hypotheses":[{"name":"a"}],"common":{"files":[]}}`),
		refused("unknown remote field", `{"hypotheses":[{"name":"a"}],"remote":[{"node":"n","port":22}]}`),
		refused("no hypotheses", `{"hypotheses":[]}`),
		refused("no hypotheses field", `{"command":["true"]}`),
		refused("hypotheses not an array", `{"hypotheses":{}}`),
		refused("empty name", `{"hypotheses":[{"name":""}]}`),
		refused("no name", `{"hypotheses":[{}]}`),
		refused("name with a slash", `{"hypotheses":[{"name":"a/b"}]}`),
		refused("name too long", `{"hypotheses":[{"name":"`+long+`"}]}`),
		refused("name ..", `{"hypotheses":[{"name":".."}]}`),
		refused("two contents", `{"hypotheses":[{"name":"a","edits":[{"path":"x","content":"","file":"f"}]}]}`),
		refused("no content", `{"hypotheses":[{"name":"a","edits":[{"path":"x"}]}]}`),
		refused("edit without path", `{"hypotheses":[{"name":"a","edits":[{"content":""}]}]}`),
		refused("mode not octal", `{"hypotheses":[{"name":"a","edits":[{"path":"x","content":"","mode":"0999"}]}]}`),
		refused("mode too big", `{"hypotheses":[{"name":"a","edits":[{"path":"x","content":"","mode":"01755"}]}]}`),
		refused("absolute path", `{"hypotheses":[{"name":"a","edits":[{"path":"/etc/passwd","content":""}]}]}`),
		refused("dot-dot path", `{"hypotheses":[{"name":"a","delete":["a/../../x"]}]}`),
		refused("dot path", `{"hypotheses":[{"name":"a","delete":["a/./x"]}]}`),
		refused("empty component", `{"hypotheses":[{"name":"a","delete":["a//x"]}]}`),
		refused("trailing slash", `{"hypotheses":[{"name":"a","delete":["a/"]}]}`),
		refused("into .git", `{"hypotheses":[{"name":"a","edits":[{"path":"sub/.GIT/config","content":""}]}]}`),
		refused("backslash", `{"hypotheses":[{"name":"a","delete":["a\\b"]}]}`),
		refused("control character", `{"hypotheses":[{"name":"a","delete":["a\u0001b"]}]}`),
		refused("empty path", `{"hypotheses":[{"name":"a","delete":[""]}]}`),
		refused("common's path", `{"hypotheses":[{"name":"a"}],"common":{"delete":["../x"]}}`),
		refused("net", `{"hypotheses":[{"name":"a"}],"net":"none"}`),
		refused("tmp", `{"hypotheses":[{"name":"a"}],"tmp":"ram"}`),
		refused("confirm too many", `{"hypotheses":[{"name":"a"}],"confirm":21}`),
		refused("negative jobs", `{"hypotheses":[{"name":"a"}],"jobs":-1}`),
		refused("jobs as a string", `{"hypotheses":[{"name":"a"}],"jobs":"4"}`),
		refused("timeout as a number", `{"hypotheses":[{"name":"a"}],"timeout":300}`),
		refused("timeout in words", `{"hypotheses":[{"name":"a"}],"timeout":"5 minutes"}`),
		refused("empty command element", `{"hypotheses":[{"name":"a"}],"command":["go",""]}`),
		refused("absolute junit", `{"hypotheses":[{"name":"a"}],"junit":"/tmp/r.xml"}`),
		refused("junit out of the directory", `{"hypotheses":[{"name":"a"}],"junit":"../r.xml"}`),
		refused("absolute test_paths glob", `{"hypotheses":[{"name":"a"}],"test_paths":["/tests/**"]}`),
		refused("empty test_paths glob", `{"hypotheses":[{"name":"a"}],"test_paths":[""]}`),
		refused("env name with =", `{"hypotheses":[{"name":"a"}],"env":{"A=B":"x"}}`),
		refused("empty env name", `{"hypotheses":[{"name":"a"}],"env":{"":"x"}}`),
		refused("negative node jobs", `{"hypotheses":[{"name":"a"}],"remote":[{"node":"n","jobs":-1}]}`),
		refused("allow_test_edits as a string", `{"hypotheses":[{"name":"a"}],"allow_test_edits":"yes"}`),

		loaderOnly("a key given twice", `{"hypotheses":[{"name":"a","name":"b"}]}`),
		loaderOnly("duplicate names", `{"hypotheses":[{"name":"a"},{"name":"a"}]}`),
		loaderOnly("names differing in case", `{"hypotheses":[{"name":"a"},{"name":"A"}]}`),
		loaderOnly("a zero timeout", `{"hypotheses":[{"name":"a"}],"timeout":"0s"}`),
		loaderOnly("NUL in a command element", `{"hypotheses":[{"name":"a"}],"command":["a\u0000b"]}`),
		loaderOnly("invalid base64", `{"hypotheses":[{"name":"a","edits":[{"path":"x","content_base64":"!!"}]}]}`),
		loaderOnly("a bad glob", `{"hypotheses":[{"name":"a"}],"test_paths":["[x"]}`),
	}
	// Every spec the repository holds (the demo's, the judge fixtures',
	// the engine's testdata) is valid to both.
	for _, pattern := range []string{"demo/fixture/spec/*.json", "engine/spec/testdata/spec/*.json", "testdata/judge/*/*.json"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil || !strings.Contains(string(b), `"hypotheses"`) {
				continue
			}
			cases = append(cases, valid(f, string(b)))
		}
	}
	for _, c := range cases {
		_, lerr := engine.DecodeSpec([]byte(c.spec))
		if (lerr == nil) != c.loaderAccept {
			t.Errorf("%s: the loader says %v, want accepted=%v\n%s", c.name, lerr, c.loaderAccept, c.spec)
		}
		serr := validateJSON(sch, []byte(c.spec))
		if (serr == nil) != c.schemaAccept {
			t.Errorf("%s: docs/schema/spec.v1.json says %v, want accepted=%v (and the loader %v)\n%s", c.name, serr, c.schemaAccept, lerr, c.spec)
		}
	}
}
