//go:build linux

package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/internal/mcpserver"
	"github.com/shadow-dev/shadow/test/e2e"
)

// shadow_run's tests_from (docs/spec.md "tests_from"): the reproduction
// decides between the overfit and the fix, the summary says who fails it,
// the report names it, and a bad one is a tool error naming it.
func TestMCPTestsFrom(t *testing.T) {
	rn := e2e.JudgeRunners(t)[2]
	e, _ := e2e.JudgeEnv(t, rn)
	cands := filepath.Join(filepath.Dir(e2e.JudgeSpec(t, rn, "spec.json")), "cands")
	repro := filepath.Join(e.Dir, "repro")
	if err := os.MkdirAll(repro, 0o755); err != nil {
		t.Fatal(err)
	}
	test := "package calc\n\nimport \"testing\"\n\nfunc TestAddOnePlusTwo(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"Add(1, 2) != 3\")\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(repro, "add_repro_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	m := e2e.NewMCPEnv(t, e, "", "-C", e.WS)
	args := func(from string) map[string]any {
		return map[string]any{
			"hypotheses": []any{
				map[string]any{"name": "baseline"},
				map[string]any{"name": "overfit", "edits": []any{map[string]any{"path": "calc.go", "file": filepath.Join(cands, "overfit/calc.go")}}},
				map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "calc.go", "file": filepath.Join(cands, "fix/calc.go")}}},
			},
			"command":    rn.Command,
			"tests_from": from,
		}
	}
	res := m.MustCall("shadow_run", args(repro))
	d := e2e.Structured[mcpserver.RunDoc](t, res)
	if res.IsError || d.Winner == nil || *d.Winner != "fix" {
		t.Fatalf("winner %v, want fix: %s", e2e.Deref(d.Winner), e2e.Text(res))
	}
	if !strings.Contains(d.Summary, "overfit: failed") || !strings.Contains(d.Summary, "fails 1 test(s) from tests_from") {
		t.Errorf("summary does not say the overfit fails the tests from tests_from:\n%s", d.Summary)
	}
	for _, l := range strings.Split(d.Summary, "\n") {
		if strings.HasPrefix(l, "fix: ") && strings.Contains(l, "tests_from") {
			t.Errorf("the fix's summary line says it fails tests_from: %s", l)
		}
	}
	if rep := m.Report(d); rep.TestsFrom == nil || rep.TestsFrom.Source != repro || len(rep.TestsFrom.Tests) != 1 {
		t.Errorf("report tests_from %+v", rep.TestsFrom)
	}
	bad := m.MustCall("shadow_run", args(filepath.Join(e.Dir, "nothere")))
	if !bad.IsError || !strings.Contains(e2e.Text(bad), "tests_from: "+filepath.Join(e.Dir, "nothere")) {
		t.Errorf("a missing tests_from: error %v %s", bad.IsError, e2e.Text(bad))
	}
}

// The contrastive note reaches an agent: the brief's contrast and its
// summary line name what only that candidate does.
func TestMCPContrast(t *testing.T) {
	rn := e2e.JudgeRunners(t)[2]
	e, _ := e2e.JudgeEnv(t, rn)
	fix := filepath.Join(filepath.Dir(e2e.JudgeSpec(t, rn, "spec.json")), "cands", "fix", "calc.go")
	m := e2e.NewMCPEnv(t, e, "", "-C", e.WS)
	res := m.MustCall("shadow_run", map[string]any{
		"hypotheses": []any{
			map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "calc.go", "file": fix}}},
			map[string]any{"name": "extra", "edits": []any{map[string]any{"path": "calc.go", "file": fix}, e2e.Edit("util.go", "package calc\n")}},
		},
		"command": rn.Command,
	})
	d := e2e.Structured[mcpserver.RunDoc](t, res)
	if res.IsError {
		t.Fatalf("%s", e2e.Text(res))
	}
	for _, h := range d.Hypotheses {
		if want := map[string]string{"extra": "only it touches util.go"}[h.Name]; h.Contrast != want {
			t.Errorf("%s: contrast %q, want %q", h.Name, h.Contrast, want)
		}
	}
	if !strings.Contains(d.Summary, "contrast: only it touches util.go") {
		t.Errorf("summary lacks the note:\n%s", d.Summary)
	}
	if rep := m.Report(d); rep.Hypotheses[0].Contrast == nil {
		t.Errorf("report: no contrast on %s", rep.Hypotheses[0].Name)
	}
}
