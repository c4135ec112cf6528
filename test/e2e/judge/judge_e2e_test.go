//go:build linux

package judge

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/test/e2e"
)

// Every candidate is judged by its code under the checkout's tests: the
// fixes that bring tests are not disqualified and can win; the overfit,
// first in spec order and no bigger than the fix, passes the checkout's
// tests too but fails the reproductions the other candidates brought, and
// ranks below every real fix; the candidate that only weakened the test
// fails. With only fix+test candidates there is a winner (exit 0). On the
// build before the judged run the overfit won (the fixes with tests were
// disqualified and the bare fix lost the tie on spec order), and with
// only fix+test candidates there was no winner (exit 1).
func TestE2EJudgeCrossExamination(t *testing.T) {
	e2e.Parallel(t)
	for _, rn := range e2e.JudgeRunners(t) {
		t.Run(rn.Dir, func(t *testing.T) {
			e, flags := e2e.JudgeEnv(t, rn)
			args := append(append(flags, "--headless", "--json", "-C", e.WS, e2e.JudgeSpec(t, rn, "spec.json"), "--"), rn.Command...)
			out, stderr, code := e.Shadow(args...)
			rep := e.Report(out)
			m := e2e.ByName(rep)
			real := []string{"fix_newfile", "fix_append", "fix"}
			if code != 0 || rep.Winner == nil || !slices.Contains(real, *rep.Winner) {
				t.Fatalf("exit %d, winner %v (want a real fix)\n%s\n%s", code, e2e.Deref(rep.Winner), judgeTable(rep), stderr)
			}
			o := m["overfit"]
			for _, n := range real {
				r := m[n]
				if r.Status != engine.StatusPassed || r.Disqualified != nil || r.Rank > o.Rank {
					t.Errorf("%s: status %s, disqualified %q, rank %d (overfit %d)", n, r.Status, e2e.Deref(r.Disqualified), r.Rank, o.Rank)
				}
			}
			if o.Status != engine.StatusPassed || o.Cross == nil || len(o.Cross.Failed) == 0 {
				t.Fatalf("overfit: status %s, cross %+v: it must pass the checkout's tests and fail the others' reproductions\n%s", o.Status, o.Cross, judgeTable(rep))
			}
			for _, f := range o.Cross.Failed {
				if f.From != "fix_newfile" && f.From != "fix_append" {
					t.Errorf("overfit failed a reproduction of %s", f.From)
				}
			}
			for _, n := range []string{"fix_newfile", "fix_append"} {
				p := m[n].ProposedTests
				if len(p) != 1 || p[0].Reproduces == nil || !*p[0].Reproduces {
					t.Errorf("%s: proposed_tests %s, want one reproduction", n, e2e.ProposedString(p))
				}
				if len(m[n].JudgeEdits) != 1 {
					t.Errorf("%s: judge_edits %v", n, m[n].JudgeEdits)
				}
				if c := m[n].Cross; c == nil || len(c.Failed) != 0 || len(c.Passed) != 1 {
					t.Errorf("%s: cross %+v, want the other's reproduction passed", n, c)
				}
			}
			if w := m["weaken"]; w.Status != engine.StatusFailed || w.Disqualified != nil || len(w.JudgeEdits) != 1 {
				t.Errorf("weaken: status %s disqualified %q judge_edits %v: judged without its test change, it fails", w.Status, e2e.Deref(w.Disqualified), w.JudgeEdits)
			}
		})
	}
}

// Only candidates that bring a test with their fix (what agents write):
// there is a winner, exit 0 (it was exit 1: every one disqualified).
func TestE2EJudgeFixesWithTestsWin(t *testing.T) {
	e2e.Parallel(t)
	for _, rn := range e2e.JudgeRunners(t) {
		t.Run(rn.Dir, func(t *testing.T) {
			e, flags := e2e.JudgeEnv(t, rn)
			args := append(append(flags, "--headless", "--json", "--baseline", "-C", e.WS, e2e.JudgeSpec(t, rn, "spec-tests-only.json"), "--"), rn.Command...)
			out, stderr, code := e.Shadow(args...)
			rep := e.Report(out)
			if code != 0 || rep.Winner == nil {
				t.Errorf("only fix+test candidates: exit %d, winner %v\n%s\n%s", code, e2e.Deref(rep.Winner), judgeTable(rep), stderr)
			}
		})
	}
}

// --apply writes the winner's code, not its proposed test; `shadow apply
// --with-tests` writes both; the text report says what the cross phase
// decided.
func TestE2EJudgeApplyWritesCode(t *testing.T) {
	rn := e2e.JudgeRunners(t)[0]
	e, _ := e2e.JudgeEnv(t, rn)
	args := append([]string{"--headless", "--apply", "-C", e.WS, e2e.JudgeSpec(t, rn, "spec.json"), "--"}, rn.Command...)
	out, stderr, code := e.Shadow(args...)
	if code != 0 || !strings.Contains(out, "winner: fix_newfile") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"cross: overfit fails", "proposes 1 test(s), 1 reproduce", "weaken: judged without its own test changes"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	fixed, _ := os.ReadFile(filepath.Join("testdata", "judge", "pytest", "cands", "fix", "calc.py"))
	if b, _ := os.ReadFile(filepath.Join(e.WS, "calc.py")); string(b) != string(fixed) {
		t.Errorf("calc.py after --apply:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "tests", "test_add_more.py")); err == nil {
		t.Errorf("--apply wrote the winner's proposed test")
	}
	orig, _ := os.ReadFile(filepath.Join("testdata", "judge", "pytest", "ws", "calc.py"))
	os.WriteFile(filepath.Join(e.WS, "calc.py"), orig, 0o644)
	out, stderr, code = e.Shadow("apply", "--with-tests", "-C", e.WS, "@last/fix_newfile")
	if code != 0 || !strings.Contains(out, "tests/test_add_more.py") {
		t.Fatalf("apply --with-tests: exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "tests", "test_add_more.py")); err != nil {
		t.Errorf("apply --with-tests did not write the test: %v", err)
	}
}

func judgeTable(rep *engine.Report) string {
	var b strings.Builder
	for _, h := range rep.Hypotheses {
		b.WriteString(h.Name + " " + h.Status + " " + e2e.Deref(h.Disqualified) + " " + e2e.Deref(h.Reason) + " proposed " + e2e.ProposedString(h.ProposedTests))
		if h.Cross != nil {
			b.WriteString(" cross failed ")
			for _, f := range h.Cross.Failed {
				b.WriteString(f.From + ":" + f.Test + " ")
			}
		}
		if h.Tests != nil {
			b.WriteString(" tests " + h.Tests.Framework)
		}
		b.WriteString("\n" + h.OutputTail + "\n")
	}
	return b.String()
}

// A real project: mattn/go-runewidth (a dependency of the TUI, from the
// module cache) with a one-character regression put back into Truncate
// (`< w` for `<= w`: a string exactly w cells wide is cut). Its own suite
// catches it (TestTruncateSmaller, TestTruncateJustFit, w 10 and 80). The
// overfit special-cases those widths in the same one-line change and comes
// first; the fix with a test adds TestTruncateExactWidth (w 4), which the
// overfit fails. Plain `go test .`: the cross phase selects the test with
// -run and -v.
func TestE2EJudgeRealGoModule(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not installed")
	}
	out, err := exec.Command("go", "mod", "download", "-json", "github.com/mattn/go-runewidth@v0.0.19").Output()
	if err != nil {
		t.Skipf("go-runewidth v0.0.19 not in the module cache and not downloadable: %v", err)
	}
	var dir string
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), `"Dir": "`); ok {
			dir = strings.TrimSuffix(v, `",`)
		}
	}
	e := e2e.NewEnv(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
			b, _ := os.ReadFile(f)
			e.Write(filepath.Base(f), string(b), 0o644)
		}
	}
	src, _ := os.ReadFile(filepath.Join(e.WS, "runewidth.go"))
	const good = "\tif c.StringWidth(s) <= w {\n\t\treturn s\n\t}\n\tw -= c.StringWidth(tail)"
	if !strings.Contains(string(src), good) {
		t.Fatalf("runewidth.go v0.0.19 no longer holds Truncate's check")
	}
	bug := strings.Replace(string(src), good, strings.Replace(good, "<= w", "< w", 1), 1)
	e.Write("runewidth.go", bug, 0o644)
	// Its dependencies into the module cache now: the sandbox may have no
	// network.
	dl := exec.Command("go", "mod", "download")
	dl.Dir = e.WS
	if b, err := dl.CombinedOutput(); err != nil {
		t.Skipf("go mod download in the module: %v\n%s", err, b)
	}
	overfit := strings.Replace(string(src), good, strings.Replace(good, "<= w", "< w || w%10 == 0 && c.StringWidth(s) == w", 1), 1)
	exact := "package runewidth\n\nimport \"testing\"\n\nfunc TestTruncateExactWidth(t *testing.T) {\n\tif got := Truncate(\"abcd\", 4, \"...\"); got != \"abcd\" {\n\t\tt.Fatalf(\"Truncate(abcd, 4) = %q, want abcd\", got)\n\t}\n}\n"
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "overfit", "edits": []any{pyEdit("runewidth.go", overfit)}},
		map[string]any{"name": "fix_with_test", "edits": []any{pyEdit("runewidth.go", string(src)), pyEdit("truncate_exact_test.go", exact)}},
	}})
	stdout, stderr, code := e.Shadow("--headless", "--json", "-C", e.WS, spec, "--", "go", "test", "-count=1", ".")
	rep := e.Report(stdout)
	m := e2e.ByName(rep)
	if code != 0 || rep.Winner == nil || *rep.Winner != "fix_with_test" {
		t.Fatalf("exit %d winner %s\n%s\n%s", code, e2e.Deref(rep.Winner), judgeTable(rep), stderr)
	}
	if o := m["overfit"]; o.Status != engine.StatusPassed || o.Cross == nil || len(o.Cross.Failed) != 1 || o.Cross.Failed[0].Test != "truncate_exact_test.go::TestTruncateExactWidth" {
		t.Errorf("overfit: status %s cross %+v", o.Status, o.Cross)
	}
	if p := m["fix_with_test"].ProposedTests; len(p) != 1 || p[0].Reproduces == nil || !*p[0].Reproduces {
		t.Errorf("fix_with_test proposed %s", e2e.ProposedString(p))
	}
}
