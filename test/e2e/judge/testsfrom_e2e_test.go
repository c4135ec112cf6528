//go:build linux

package judge

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/test/e2e"
)

// Tests written before the candidates were seen (--tests-from, docs/spec.md
// "tests_from"): on the Go fixture (testdata/judge/go), an overfit that
// special-cases Add(2, 2) passes the checkout's tests as the real fix does
// and, first in spec order with fewer changed lines, wins the tie without
// them. A reproduction written from the issue alone (Add(1, 2) == 3)
// sinks it.

const goRepro = `package calc

import "testing"

func TestAddOnePlusTwo(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Fatalf("Add(1, 2) = %d, want 3", got)
	}
}
`

// goReproPatch appends the same test to the checkout's calc_test.go.
const goReproPatch = `--- a/calc_test.go
+++ b/calc_test.go
@@ -19,3 +19,9 @@ func TestAddTwoPlusTwo(t *testing.T) {
 		t.Fatalf("Add(2, 2) = %d, want 4", got)
 	}
 }
+
+func TestAddOnePlusTwo(t *testing.T) {
+	if got := Add(1, 2); got != 3 {
+		t.Fatalf("Add(1, 2) = %d, want 3", got)
+	}
+}
`

func goTestsFromEnv(t *testing.T) (*e2e.Env, e2e.JudgeRunner, string) {
	rn := e2e.JudgeRunners(t)[2]
	if rn.Dir != "go" {
		t.Fatalf("runner %s, want go", rn.Dir)
	}
	e, _ := e2e.JudgeEnv(t, rn)
	cands := filepath.Dir(e2e.JudgeSpec(t, rn, "spec.json"))
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "overfit", "edits": []any{map[string]any{"path": "calc.go", "file": filepath.Join(cands, "cands/overfit/calc.go")}}},
		map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "calc.go", "file": filepath.Join(cands, "cands/fix/calc.go")}}},
		// An overfit that also empties the reproduction: its version is
		// its proposal, never what it is judged by.
		map[string]any{"name": "cheat", "edits": []any{
			map[string]any{"path": "calc.go", "file": filepath.Join(cands, "cands/overfit/calc.go")},
			map[string]any{"path": "add_repro_test.go", "content": "package calc\n"},
		}},
	}})
	return e, rn, spec
}

func writeOutside(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestE2ETestsFromSinksTheOverfit(t *testing.T) {
	e2e.Parallel(t)
	e, rn, spec := goTestsFromEnv(t)
	// Without them the overfit wins: the fixture is one where the
	// checkout's tests cannot tell.
	out, stderr, code := e.Shadow(append([]string{"--headless", "--json", "-C", e.WS, spec, "--"}, rn.Command...)...)
	if rep := e.Report(out); code != 0 || rep.Winner == nil || *rep.Winner != "overfit" {
		t.Fatalf("without --tests-from: exit %d, winner %v (the fixture must let the overfit win)\n%s\n%s", code, e2e.Deref(rep.Winner), judgeTable(rep), stderr)
	}

	dir := filepath.Join(e.Dir, "repro")
	writeOutside(t, filepath.Join(dir, "add_repro_test.go"), goRepro)
	patch := filepath.Join(e.Dir, "repro.diff")
	writeOutside(t, patch, goReproPatch)
	before := e2e.Tree(t, e.WS)
	for _, c := range []struct {
		kind, source, file string
	}{{"dir", dir, "add_repro_test.go"}, {"patch", patch, "calc_test.go"}} {
		t.Run(c.kind, func(t *testing.T) {
			out, stderr, code := e.Shadow(append([]string{"--headless", "--json", "-C", e.WS, "--tests-from", c.source, spec, "--"}, rn.Command...)...)
			rep := e.Report(out)
			m := e2e.ByName(rep)
			if code != 0 || rep.Winner == nil || *rep.Winner != "fix" {
				t.Fatalf("exit %d, winner %v, want fix\n%s\n%s", code, e2e.Deref(rep.Winner), judgeTable(rep), stderr)
			}
			test := c.file + "::TestAddOnePlusTwo"
			tf := rep.TestsFrom
			if tf == nil || tf.Kind != c.kind || tf.Source != c.source || !slices.Equal(tf.Files, []string{c.file}) || !slices.Equal(tf.Tests, []string{test}) {
				t.Fatalf("tests_from %+v, want %s %s [%s] [%s]", tf, c.kind, c.source, c.file, test)
			}
			for name, want := range map[string]string{"baseline": "failed", "overfit": "failed", "cheat": "failed", "fix": "passed"} {
				o := m[name].TestsFrom
				got := o != nil && slices.Equal(map[string][]string{"failed": o.Failed, "passed": o.Passed}[want], []string{test})
				if !got {
					t.Errorf("%s: tests_from %+v, want %s %s", name, o, want, test)
				}
			}
			for _, n := range []string{"overfit", "cheat"} {
				if m[n].Status != engine.StatusFailed || m[n].Rank < m["fix"].Rank {
					t.Errorf("%s: status %s rank %d (fix %d)", n, m[n].Status, m[n].Rank, m["fix"].Rank)
				}
			}
			if c.kind == "dir" && !slices.Equal(m["cheat"].JudgeEdits, []string{"add_repro_test.go"}) {
				t.Errorf("cheat: judge_edits %v: its change to a test from before the candidates is a test edit", m["cheat"].JudgeEdits)
			}
			// Never the winner's: not in its files or diff.
			if w := m["fix"]; !slices.Equal(w.Files, []string{"calc.go"}) || strings.Contains(w.Diff, "TestAddOnePlusTwo") {
				t.Errorf("fix: files %v, diff holds the tests: %v", w.Files, strings.Contains(w.Diff, "TestAddOnePlusTwo"))
			}
			if after := e2e.Tree(t, e.WS); after != before {
				t.Errorf("the run changed the workspace")
			}
			txt, _, _ := e.Shadow(append([]string{"--headless", "--color", "never", "-C", e.WS, "--tests-from", c.source, spec, "--"}, rn.Command...)...)
			for _, want := range []string{"tests from before the candidates (" + c.kind + " ", test, "[fails 1 of 1 test(s) from before the candidates: " + test + "]"} {
				if !strings.Contains(txt, want) {
					t.Errorf("text report lacks %q:\n%s", want, txt)
				}
			}
		})
	}

	// --apply and shadow apply write the winner's own files only.
	out, stderr, code = e.Shadow(append([]string{"--headless", "--json", "--apply", "-C", e.WS, "--tests-from", dir, spec, "--"}, rn.Command...)...)
	if rep := e.Report(out); code != 0 || !slices.Equal(rep.Applied, []string{"calc.go"}) {
		t.Fatalf("--apply: exit %d, applied %v, want [calc.go]\n%s", code, rep.Applied, stderr)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "add_repro_test.go")); err == nil {
		t.Errorf("--apply wrote the tests from before the candidates into the checkout")
	}
	if out, stderr, code := e.Shadow("apply", "--with-tests", "--force", "-C", e.WS, "@last/fix"); code != 0 {
		t.Fatalf("shadow apply: exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "add_repro_test.go")); err == nil {
		t.Errorf("shadow apply --with-tests wrote the tests from before the candidates")
	}
}

// The spec's "tests_from", relative to the spec's directory, is the
// flag's; the flag wins over it.
func TestE2ETestsFromSpecField(t *testing.T) {
	e2e.Parallel(t)
	e, rn, spec := goTestsFromEnv(t)
	writeOutside(t, filepath.Join(e.Dir, "repro", "add_repro_test.go"), goRepro)
	b, _ := os.ReadFile(spec)
	withField := filepath.Join(e.Dir, "with.json")
	writeOutside(t, withField, strings.Replace(string(b), `{"hypotheses"`, `{"tests_from":"repro","hypotheses"`, 1))
	out, stderr, code := e.Shadow(append([]string{"--headless", "--json", "-C", e.WS, withField, "--"}, rn.Command...)...)
	rep := e.Report(out)
	if code != 0 || rep.Winner == nil || *rep.Winner != "fix" || rep.TestsFrom == nil || rep.TestsFrom.Source != filepath.Join(e.Dir, "repro") {
		t.Fatalf("spec tests_from: exit %d winner %v tests_from %+v\n%s\n%s", code, e2e.Deref(rep.Winner), rep.TestsFrom, judgeTable(rep), stderr)
	}
	// A file of theirs over the checkout's code is said, not refused (a
	// project's test file may be one no glob names); their caches stay out.
	codeDir := filepath.Join(e.Dir, "code")
	writeOutside(t, filepath.Join(codeDir, "add_repro_test.go"), goRepro)
	writeOutside(t, filepath.Join(codeDir, "calc.go"), e.Read("calc.go"))
	writeOutside(t, filepath.Join(codeDir, "__pycache__", "x.pyc"), "\x00")
	out, stderr, _ = e.Shadow(append([]string{"--headless", "--json", "-C", e.WS, "--tests-from", codeDir, spec, "--"}, rn.Command...)...)
	if !strings.Contains(stderr, "shadow: --tests-from: "+codeDir+" replace(s) the checkout's calc.go") {
		t.Errorf("no notice of calc.go replaced:\n%s", stderr)
	}
	if rep := e.Report(out); rep.TestsFrom == nil || !slices.Equal(rep.TestsFrom.Files, []string{"add_repro_test.go", "calc.go"}) {
		t.Errorf("tests_from %+v: the cache must stay out", rep.TestsFrom)
	}
	empty := filepath.Join(e.Dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := e.Shadow(append([]string{"--headless", "-C", e.WS, "--tests-from", empty, withField, "--"}, rn.Command...)...); code != 2 || !strings.Contains(stderr, "--tests-from: "+empty) {
		t.Errorf("the flag must win over the field: exit %d\n%s", code, stderr)
	}
}

// Bad input: exit 2, one line saying what and where, nothing run, nothing
// recorded, nothing written.
func TestE2ETestsFromRefusals(t *testing.T) {
	e2e.Parallel(t)
	e, rn, spec := goTestsFromEnv(t)
	d := e.Dir
	writeOutside(t, filepath.Join(d, "dotgit", ".git", "config"), "[core]\n")
	writeOutside(t, filepath.Join(d, "sym", "real_test.go"), goRepro)
	if err := os.Symlink("/etc/passwd", filepath.Join(d, "sym", "link_test.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(d, "emptydir"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeOutside(t, filepath.Join(d, "empty.diff"), "\n")
	writeOutside(t, filepath.Join(d, "caches", "__pycache__", "test_x.cpython-311.pyc"), "\x00")
	writeOutside(t, filepath.Join(d, "stale.diff"), strings.Replace(goReproPatch, `want 4", got)`, `want four", got)`, 1))
	writeOutside(t, filepath.Join(d, "missing.diff"), "--- a/nope_test.go\n+++ b/nope_test.go\n@@ -1 +1 @@\n-a\n+b\n")
	writeOutside(t, filepath.Join(d, "del.diff"), deletion("calc_test.go", e.Read("calc_test.go")))
	e.Write("sub/keep/y.go", "package keep\n", 0o644) // a directory of the checkout, which a file of theirs may not replace
	writeOutside(t, filepath.Join(d, "overdir", "sub"), "a file where the checkout has a directory\n")
	before := e2e.Tree(t, e.WS)
	for _, c := range []struct{ name, source, want string }{
		{"missing", filepath.Join(d, "nothere"), "nothere: no such file or directory"},
		{"empty dir", filepath.Join(d, "emptydir"), "the directory holds no file"},
		{"empty patch", filepath.Join(d, "empty.diff"), "empty.diff: empty"},
		{"into .git", filepath.Join(d, "dotgit"), ".git/config: paths into .git are not allowed"},
		{"symlink", filepath.Join(d, "sym"), "link_test.go: a symlink"},
		{"patch does not apply", filepath.Join(d, "stale.diff"), "stale.diff: "},
		{"patch of a missing file", filepath.Join(d, "missing.diff"), "nope_test.go"},
		{"patch deletes", filepath.Join(d, "del.diff"), "deletes calc_test.go"},
		{"file over a directory", filepath.Join(d, "overdir"), `sub: "sub" is a directory`},
		{"device", "/dev/null", "/dev/null: neither a directory nor a regular file"},
		{"only caches", filepath.Join(d, "caches"), "holds only runner caches"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := e.Shadow(append([]string{"--headless", "-C", e.WS, "--tests-from", c.source, spec, "--"}, rn.Command...)...)
			if code != 2 || !strings.Contains(stderr, "shadow: --tests-from: ") || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("exit %d, want 2 and one line naming %q\nstdout: %s\nstderr: %s", code, c.want, out, stderr)
			}
		})
	}
	// A path the spec's common part sets too: two judges of one file.
	writeOutside(t, filepath.Join(d, "repro", "add_repro_test.go"), goRepro)
	b, _ := os.ReadFile(spec)
	both := filepath.Join(d, "both.json")
	writeOutside(t, both, strings.Replace(string(b), `{"hypotheses"`, `{"common":{"edits":[{"path":"add_repro_test.go","content":"package calc\n"}]},"hypotheses"`, 1))
	if _, stderr, code := e.Shadow(append([]string{"--headless", "-C", e.WS, "--tests-from", filepath.Join(d, "repro"), both, "--"}, rn.Command...)...); code != 2 || !strings.Contains(stderr, "add_repro_test.go is also in the spec's common part") {
		t.Errorf("common and tests-from on one path: exit %d\n%s", code, stderr)
	}
	if after := e2e.Tree(t, e.WS); after != before {
		t.Errorf("a refusal changed the workspace")
	}
	if runs := e.Log().Runs; len(runs) != 0 {
		t.Errorf("a refusal recorded %d run(s)", len(runs))
	}
}

// deletion is git diff's patch deleting path, whose content is old.
func deletion(path, old string) string {
	lines := strings.SplitAfter(strings.TrimSuffix(old, "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\ndeleted file mode 100644\n--- a/%s\n+++ /dev/null\n@@ -1,%d +0,0 @@\n", path, path, path, len(lines))
	for _, l := range lines {
		b.WriteString("-" + strings.TrimSuffix(l, "\n") + "\n")
	}
	return b.String()
}

// pytest names a test FILE::NAME: the reproduction, in a directory of its
// own under tests/, sinks the overfit there too, and each hypothesis's
// tests_from names it as the report does.
func TestE2ETestsFromPytest(t *testing.T) {
	e2e.Parallel(t)
	rn := e2e.JudgeRunners(t)[0]
	e, _ := e2e.JudgeEnv(t, rn)
	cands := filepath.Join(filepath.Dir(e2e.JudgeSpec(t, rn, "spec.json")), "cands")
	dir := filepath.Join(e.Dir, "repro")
	writeOutside(t, filepath.Join(dir, "tests", "test_repro.py"), "from calc import add\n\n\ndef test_one_plus_two():\n    assert add(1, 2) == 3\n")
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "overfit", "edits": []any{map[string]any{"path": "calc.py", "file": filepath.Join(cands, "overfit/calc.py")}}},
		map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "calc.py", "file": filepath.Join(cands, "fix/calc.py")}}},
	}})
	out, stderr, code := e.Shadow(append([]string{"--headless", "--json", "-C", e.WS, "--tests-from", dir, spec, "--"}, rn.Command...)...)
	rep := e.Report(out)
	m := e2e.ByName(rep)
	const test = "tests/test_repro.py::test_one_plus_two"
	if code != 0 || rep.Winner == nil || *rep.Winner != "fix" || rep.TestsFrom == nil || !slices.Equal(rep.TestsFrom.Tests, []string{test}) {
		t.Fatalf("exit %d winner %v tests_from %+v\n%s\n%s", code, e2e.Deref(rep.Winner), rep.TestsFrom, judgeTable(rep), stderr)
	}
	if o := m["overfit"].TestsFrom; m["overfit"].Status != engine.StatusFailed || o == nil || !slices.Equal(o.Failed, []string{test}) {
		t.Errorf("overfit: status %s tests_from %+v", m["overfit"].Status, o)
	}
	if o := m["fix"].TestsFrom; o == nil || !slices.Equal(o.Passed, []string{test}) {
		t.Errorf("fix: tests_from %+v", o)
	}
}
