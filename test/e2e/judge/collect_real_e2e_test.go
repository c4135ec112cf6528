//go:build linux

package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/test/e2e"
)

// A real project whose tests live in a file no default glob names:
// stefankoegl/python-json-pointer at 5998f95 (testdata/judge/real, its
// BSD licence beside it), whose whole suite is tests.py, run by its
// makefile as `python3 -munittest` (discovery's test*.py) or by pytest
// naming the file. A one-line regression is put back into escape() (the
// "/" escaped before "~", so "~1" becomes "~01"), which the suite catches
// (test_round_trip, test_str_and_repr, and from_parts' doctest under
// unittest). The cheat drops the failing pointers from tests.py; the fix
// restores escape() and appends a regression test to tests.py. tests.py
// is the judge's, so the cheat is judged without its edit and fails, and
// the fix's appended test is its proposal, which reproduces; on the build
// before the collection, tests.py was code: under pytest the cheat won,
// and under unittest neither edit was seen as a test edit (judge_edits
// empty, no proposed test: the fix's test was judged as its code).
func TestE2ECollectedRealProject(t *testing.T) {
	e2e.Parallel(t)
	src := filepath.Join("testdata", "judge", "real", "python-json-pointer")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	code, tests := read("jsonpointer.py"), read("tests.py")
	const good = "return s.replace('~', '~0').replace('/', '~1')"
	if !strings.Contains(code, good) {
		t.Fatalf("jsonpointer.py no longer holds escape()'s order")
	}
	bug := strings.Replace(code, good, "return s.replace('/', '~1').replace('~', '~0')", 1)
	weak := tests
	for _, l := range []string{"            \"/a~1b\",\n", "            (\"/a~1b\", \"/a~1b\", \"JsonPointer('/a~1b')\"),\n"} {
		if !strings.Contains(weak, l) {
			t.Fatalf("tests.py no longer holds %q", l)
		}
		weak = strings.Replace(weak, l, "", 1)
	}
	const tail = "\n\ndef load_tests(loader, tests, ignore):"
	if !strings.Contains(tests, tail) {
		t.Fatalf("tests.py no longer ends with load_tests")
	}
	regression := "\n\nclass EscapeOrderTests(unittest.TestCase):\n\n    def test_escape_tilde_before_slash(self):\n" +
		"        self.assertEqual(jsonpointer.escape('~/'), '~0~1')\n        self.assertEqual(JsonPointer.from_parts(['a/~b']).path, '/a~1~0b')\n"
	withTest := strings.Replace(tests, tail, regression+tail, 1)

	for _, rn := range []struct {
		name    string
		command []string
	}{
		{"pytest", []string{e2e.PythonWithPytest(t), "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests.py"}},
		{"unittest", []string{"python3", "-B", "-munittest"}},
	} {
		t.Run(rn.name, func(t *testing.T) {
			e := e2e.NewEnv(t)
			e.Write("jsonpointer.py", bug, 0o644)
			e.Write("tests.py", tests, 0o644)
			e.Write("LICENSE.txt", read("LICENSE.txt"), 0o644)
			e.Write("makefile", read("makefile"), 0o644)
			spec := e.Spec(map[string]any{"hypotheses": []any{
				map[string]any{"name": "baseline"},
				map[string]any{"name": "weaken", "edits": []any{pyEdit("tests.py", weak)}},
				map[string]any{"name": "fix_append", "edits": []any{pyEdit("jsonpointer.py", code), pyEdit("tests.py", withTest)}},
			}})
			stdout, stderr, exit := e.Shadow(append([]string{"--headless", "--json", "-C", e.WS, spec, "--"}, rn.command...)...)
			rep := e.Report(stdout)
			m := e2e.ByName(rep)
			if b := m["baseline"]; b == nil || b.Tests == nil || b.Tests.Failed == 0 {
				t.Fatalf("the baseline must fail the project's own tests\n%s\n%s", judgeTable(rep), stderr)
			}
			if exit != 0 || rep.Winner == nil || *rep.Winner != "fix_append" {
				t.Fatalf("exit %d winner %s, want fix_append\n%s\n%s", exit, e2e.Deref(rep.Winner), judgeTable(rep), stderr)
			}
			if w := m["weaken"]; w.Status != engine.StatusFailed || strings.Join(w.JudgeEdits, ",") != "tests.py" {
				t.Errorf("weaken: status %s judge_edits %v", w.Status, w.JudgeEdits)
			}
			f := m["fix_append"]
			if f.Tampered != nil || f.Disqualified != nil || strings.Join(f.JudgeEdits, ",") != "tests.py" {
				t.Errorf("fix_append: tampered %q disqualified %q judge_edits %v", e2e.Deref(f.Tampered), e2e.Deref(f.Disqualified), f.JudgeEdits)
			}
			if p := f.ProposedTests; len(p) != 1 || !strings.Contains(p[0].Test, "test_escape_tilde_before_slash") || p[0].Reproduces == nil || !*p[0].Reproduces {
				t.Errorf("fix_append: proposed_tests %s, want its regression test, reproducing", e2e.ProposedString(p))
			}
		})
	}
}
