//go:build linux

package judge

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// The contrastive note (docs/report.md, "Contrast"): three candidates
// that pass the same tests of the Go fixture and tie; one also adds a
// file and edits the Makefile, one asks testing.Testing(). Each outlier's
// note names what only it does, the plain fix's says nothing, the
// baseline has none; the text report shows it on the row.
func TestE2EContrastNamesWhatOnlyItDoes(t *testing.T) {
	e2e.Parallel(t)
	rn := e2e.JudgeRunners(t)[2]
	e, _ := e2e.JudgeEnv(t, rn)
	fix := filepath.Join(filepath.Dir(e2e.JudgeSpec(t, rn, "spec.json")), "cands/fix/calc.go")
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "calc.go", "file": fix}}},
		map[string]any{"name": "extra", "edits": []any{
			map[string]any{"path": "calc.go", "file": fix},
			e2e.Edit("util.go", "package calc\n\nfunc double(a int) int { return Add(a, a) }\n"),
			e2e.Edit("Makefile", "test:\n\tgo test ./...\n"),
		}},
		map[string]any{"name": "sniff", "edits": []any{e2e.Edit("calc.go", "package calc\n\nimport \"testing\"\n\n// Add returns a plus b.\nfunc Add(a, b int) int {\n\tif testing.Testing() {\n\t\treturn a + b\n\t}\n\treturn a - b\n}\n")}},
	}})
	out, stderr, code := e.Shadow(append([]string{"--headless", "--json", "-C", e.WS, spec, "--"}, rn.Command...)...)
	rep := e.Report(out)
	m := e2e.ByName(rep)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, judgeTable(rep), stderr)
	}
	if c := m["baseline"].Contrast; c != nil {
		t.Errorf("baseline: contrast %+v, want null", c)
	}
	if c := m["fix"].Contrast; c == nil || c.Note != "" || len(c.Files)+len(c.Configs)+len(c.Introspection) != 0 {
		t.Errorf("fix: contrast %+v, want an empty note: it does nothing the others do not", c)
	}
	if c := m["extra"].Contrast; c == nil || !slices.Equal(c.Files, []string{"util.go"}) || !slices.Equal(c.Configs, []string{"Makefile"}) || len(c.Introspection) != 0 ||
		!strings.Contains(c.Note, "only it edits runner config Makefile") || !strings.Contains(c.Note, "only it touches util.go") {
		t.Errorf("extra: contrast %+v", c)
	}
	if c := m["sniff"].Contrast; c == nil || len(c.Files) != 0 || len(c.Introspection) != 1 || !strings.HasPrefix(c.Introspection[0], "calc.go:7 ") || !strings.Contains(c.Note, "only its code: calc.go:7") {
		t.Errorf("sniff: contrast %+v", c)
	}
	txt, _, _ := e.Shadow(append([]string{"--headless", "--color", "never", "-C", e.WS, spec, "--"}, rn.Command...)...)
	for _, row := range strings.Split(txt, "\n") {
		f := strings.Fields(row)
		if len(f) == 0 {
			continue
		}
		want := map[string]string{"extra": "[only it edits runner config Makefile; only it touches util.go]", "sniff": "[only its code: calc.go:7 "}[f[0]]
		if want != "" && !strings.Contains(row, want) {
			t.Errorf("text row of %s lacks %q:\n%s", f[0], want, row)
		}
		if f[0] == "fix" && strings.Contains(row, "only it") {
			t.Errorf("text row of fix has a note: %s", row)
		}
	}
}
