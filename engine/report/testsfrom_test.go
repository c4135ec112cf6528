package report

import (
	"bytes"
	"strings"
	"testing"
)

// The text report names the tests from before the candidates under the
// header, marks a row that fails some, says when the baseline passes them
// all (they reproduce nothing), and puts a candidate's contrast on its row.
func TestTextTestsFromAndContrast(t *testing.T) {
	fix := "fix"
	test := "tests/test_repro.py::test_one"
	r := &Report{Command: []string{"pytest"}, Mode: "overlay", Winner: &fix,
		TestsFrom: &TestsFromInfo{Source: "/src/repro", Kind: "dir", Files: []string{"tests/test_repro.py"}, Tests: []string{test}},
		Hypotheses: []*Result{
			{Name: "fix", Status: StatusPassed, ExitCode: exitCode(0), Files: []string{"calc.py"}, TestsFrom: &TestsFromOutcome{Passed: []string{test}, Failed: []string{}},
				Contrast: &Contrast{Note: "", Files: []string{}, Configs: []string{}, Introspection: []string{}}},
			{Name: "odd", Status: StatusFailed, ExitCode: exitCode(1), Files: []string{"calc.py", "setup.cfg"}, TestsFrom: &TestsFromOutcome{Passed: []string{}, Failed: []string{test}},
				Contrast: &Contrast{Note: "only it edits runner config setup.cfg", Configs: []string{"setup.cfg"}}},
			{Name: "baseline", Status: StatusFailed, ExitCode: exitCode(1), TestsFrom: &TestsFromOutcome{Passed: []string{}, Failed: []string{test}}},
		}}
	var b bytes.Buffer
	WriteText(&b, r)
	out := b.String()
	for _, want := range []string{
		"tests from before the candidates (dir /src/repro): " + test + "; the judge's, run on every hypothesis\n",
		"[only it edits runner config setup.cfg]  [fails 1 of 1 test(s) from before the candidates: " + test + "]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "fix ") && strings.Contains(l, "[") {
			t.Errorf("fix's row has a mark: %s", l)
		}
	}
	if strings.Contains(out, "reproduce nothing") {
		t.Errorf("the baseline fails them, yet:\n%s", out)
	}
	r.Hypotheses[2].TestsFrom = &TestsFromOutcome{Passed: []string{test}, Failed: []string{}}
	b.Reset()
	WriteText(&b, r)
	if !strings.Contains(b.String(), "the baseline baseline passes every test from before the candidates: they reproduce nothing") {
		t.Errorf("a baseline passing them all is not said:\n%s", b.String())
	}
}
