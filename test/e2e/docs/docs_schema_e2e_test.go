//go:build linux

package docs

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/test/e2e"
)

// validateEvents validates every line of an NDJSON stream against the
// event schema and returns the kinds seen.
func validateEvents(t *testing.T, sch *jsonschema.Schema, stream string) map[string]int {
	t.Helper()
	kinds := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(stream))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if err := validateJSON(sch, sc.Bytes()); err != nil {
			t.Errorf("event line %d does not match docs/schema/event.v1.json: %v\n%.600s", n, err, sc.Text())
		}
		var ev struct{ Kind string }
		json.Unmarshal(sc.Bytes(), &ev)
		kinds[ev.Kind]++
	}
	return kinds
}

// TestSchemaValidatesDemoOutput runs `shadow demo --json` and `--events`
// (the real binary: this test binary runs main's dispatch) and validates
// the report and every event against docs/schema.
func TestSchemaValidatesDemoOutput(t *testing.T) {
	e := e2e.NewEnv(t)
	report, events := compileSchema(t, "report.v1.json"), compileSchema(t, "event.v1.json")

	out, stderr, code := e.Shadow("demo", "--json")
	if code != 0 {
		t.Fatalf("demo --json: exit %d\n%s", code, stderr)
	}
	if err := validateJSON(report, []byte(out)); err != nil {
		t.Errorf("demo --json does not match docs/schema/report.v1.json: %v", err)
	}
	// Every result field the code writes is in the document (null or not),
	// so the schema check above saw each of them.
	var doc struct{ Hypotheses []map[string]json.RawMessage }
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Hypotheses) == 0 {
		t.Fatalf("report: %v\n%s", err, out)
	}
	for name := range jsonFields(reflect.TypeOf(engine.Result{})) {
		if _, ok := doc.Hypotheses[0][name]; !ok && !omitEmpty(reflect.TypeOf(engine.Result{}), name) {
			t.Errorf("demo report: hypothesis field %q absent", name)
		}
	}

	out, stderr, code = e.Shadow("demo", "--events")
	if code != 0 {
		t.Fatalf("demo --events: exit %d\n%s", code, stderr)
	}
	kinds := validateEvents(t, events, out)
	for _, k := range []string{engine.KindRunStarted, engine.KindHypStarted, engine.KindOutput, engine.KindTests, engine.KindHypFinished, engine.KindRunFinished} {
		if kinds[k] == 0 {
			t.Errorf("demo --events: no %s event (kinds %v)", k, kinds)
		}
	}
}

// omitEmpty reports whether t's field with JSON name name is omitempty.
func omitEmpty(t reflect.Type, name string) bool {
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("json")
		if n, opts, _ := strings.Cut(tag, ","); n == name {
			return strings.Contains(opts, "omitempty")
		}
	}
	return false
}

// TestSchemaValidatesEveryFieldSpec runs a spec that sets every field the
// spec has (the test fails when a new one is not added here), checks the
// spec schema accepts it, and validates the report (--json) and the event
// stream (--events) of the real runs against docs/schema. The second run
// builds on the first one's record (base), so the spec needs one.
func TestSchemaValidatesEveryFieldSpec(t *testing.T) {
	e := e2e.NewEnv(t)
	specSch, report, events := compileSchema(t, "spec.v1.json"), compileSchema(t, "report.v1.json"), compileSchema(t, "event.v1.json")
	e.Write("v.txt", "bad\n", 0o644)
	e.Write("w.txt", "one\n", 0o644)
	e.Write("old.txt", "old\n", 0o644)
	e.Write("checks/keep.txt", "judge\n", 0o644)
	if err := os.WriteFile(filepath.Join(e.Dir, "good.txt"), []byte("good\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}},
	}})
	if out, stderr, code := e.Shadow("--headless", "--json", "-C", e.WS, first, "--", "sh", "-c", e2e.CheckScript); code != 0 {
		t.Fatalf("first run: exit %d\n%s\n%s", code, out, stderr)
	}

	outside := t.TempDir() // for "writable": a directory outside the workspace
	// "tests_from": a directory beside the spec, its file laid over the
	// workspace at checks/from.txt.
	if err := os.MkdirAll(filepath.Join(e.Dir, "from", "checks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Dir, "from", "checks", "from.txt"), []byte("from\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A value for every field a spec may have; a field the code has that
	// this list lacks fails the test (booleans default off), so a new one
	// is exercised here too.
	values := map[string]any{
		"hypotheses": []any{
			map[string]any{"name": "baseline"},
			map[string]any{"name": "file", "edits": []any{map[string]any{"path": "v.txt", "file": "good.txt", "mode": "0644"}}},
			map[string]any{"name": "b64", "edits": []any{map[string]any{"path": "v.txt", "content_base64": "Z29vZAo="}}, "delete": []string{"old.txt"}},
			map[string]any{"name": "patched", "base": "@last/fix", "patch": "--- a/w.txt\n+++ b/w.txt\n@@ -1 +1 @@\n-one\n+two\n"},
		},
		"$schema":          "https://raw.githubusercontent.com/shadow-dev/shadow/main/docs/schema/spec.v1.json",
		"shard":            "0/1",
		"command":          []string{"sh", "-c", e2e.CheckScript},
		"timeout":          "2m",
		"jobs":             2,
		"env":              map[string]string{"SHADOW_DOCS_TEST": "1"},
		"net":              "isolated",
		"tmp":              "private",
		"host_ports":       []int{1},
		"memory":           "1G",
		"junit":            "build/junit.xml",
		"writable":         []string{outside},
		"test_paths":       []string{"checks/**"},
		"allow_test_edits": false,
		"allow_suspicious": false,
		"no_cross":         false,
		"confirm":          1,
		"tests_from":       "from",
		"common":           map[string]any{"edits": []any{map[string]any{"path": "checks/repro.txt", "content": "repro\n"}}, "delete": []string{"checks/keep.txt"}, "patch": ""},
		// "remote" runs in a spec of its own below: the local node.
	}
	if _, ok := jsonFields(reflect.TypeOf(engine.Spec{}))["host_ports"]; ok {
		values["net"] = "private" // host ports reach a hypothesis's own network only
	}
	spec := map[string]any{}
	var missing []string
	for name, ft := range jsonFields(reflect.TypeOf(engine.Spec{})) {
		if v, ok := values[name]; ok {
			spec[name] = v
		} else if ft.Kind() == reflect.Bool {
			spec[name] = false
		} else if name != "remote" {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("the every-field spec does not set %v: add them", missing)
	}
	specPath := e.Spec(spec)
	data, _ := os.ReadFile(specPath)
	if err := validateJSON(specSch, data); err != nil {
		t.Fatalf("docs/schema/spec.v1.json refuses a spec shadow accepts: %v\n%s", err, data)
	}

	out, stderr, code := e.Shadow("--headless", "--json", "-C", e.WS, specPath)
	if code != 0 && code != 1 {
		t.Fatalf("every-field run: exit %d\n%s\n%s", code, out, stderr)
	}
	if err := validateJSON(report, []byte(out)); err != nil {
		t.Errorf("the every-field run's report does not match docs/schema/report.v1.json: %v\n%.2000s", err, out)
	}
	if r := e.Report(out); len(r.Hypotheses) != 4 {
		t.Errorf("every-field run: %d hypotheses, want 4", len(r.Hypotheses))
	}

	out, stderr, code = e.Shadow("--headless", "--events", "-C", e.WS, specPath)
	if code != 0 && code != 1 {
		t.Fatalf("every-field run (--events): exit %d\n%s\n%s", code, out, stderr)
	}
	if kinds := validateEvents(t, events, out); kinds[engine.KindRunFinished] != 1 {
		t.Errorf("--events: %d run_finished events, want 1", kinds[engine.KindRunFinished])
	}

	// "remote", on the local node: the report of a remote run.
	remoteSpec := e.Spec(map[string]any{
		"hypotheses": values["hypotheses"].([]any)[:2],
		"command":    []string{"sh", "-c", e2e.CheckScript},
		"remote":     []any{map[string]any{"node": "local", "jobs": 2}},
	})
	data, _ = os.ReadFile(remoteSpec)
	if err := validateJSON(specSch, data); err != nil {
		t.Fatalf("docs/schema/spec.v1.json refuses a spec shadow accepts: %v\n%s", err, data)
	}
	out, stderr, code = e.Shadow("--headless", "--json", "-C", e.WS, remoteSpec)
	if code != 0 && code != 1 {
		t.Fatalf("remote run: exit %d\n%s\n%s", code, out, stderr)
	}
	if err := validateJSON(report, []byte(out)); err != nil {
		t.Errorf("the remote run's report does not match docs/schema/report.v1.json: %v\n%.2000s", err, out)
	}
	if r := e.Report(out); r.Mode != "remote" || len(r.Hypotheses) != 2 {
		t.Errorf("remote run: mode %q, %d hypotheses (want remote, 2)", r.Mode, len(r.Hypotheses))
	}
}
