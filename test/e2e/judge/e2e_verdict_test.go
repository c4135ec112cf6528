//go:build linux

package judge

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/test/e2e"
)

// A small Python project in the shape of a copy of boltons: a bug in
// strutils.bytes2human, its test failing beside 22 passing ones in
// tests/test_strutils.py, and a second test file of 5 passing tests, run with
// a real `python3 -m pytest -q`.

const strutilsBug = `def bytes2human(n):
    for unit in ("B", "K", "M", "G"):
        if n < 1024:
            return "%d%s" % (n, unit)
        n = n // 1000
    return "%dT" % n
`

const strutilsFix = `def bytes2human(n):
    for unit in ("B", "K", "M", "G"):
        if n < 1024:
            return "%d%s" % (n, unit)
        n = n // 1024
    return "%dT" % n
`

const strutilsTest = `import pytest
from strutils import bytes2human


@pytest.mark.parametrize('n', range(22))
def test_small(n):
    assert bytes2human(n) == '%dB' % n


def test_bytes2human():
    assert bytes2human(2048) == "2K"
    assert bytes2human(1000 * 1024) == "1000K"
`

func otherTests() string {
	var b strings.Builder
	b.WriteString("import pytest\nfrom strutils import bytes2human\n\n\n@pytest.mark.parametrize('n', range(5))\ndef test_tiny(n):\n    assert bytes2human(n * 2048) == '%dK' % (n * 2) if n else '0B'\n")
	return b.String()
}

func pyProject(t *testing.T) (*e2e.Env, string) {
	py := e2e.PythonWithPytest(t)
	e := e2e.NewEnv(t)
	e.Write("pyproject.toml", "[tool.pytest.ini_options]\npythonpath = [\"src\"]\n", 0o644)
	e.Write("src/strutils.py", strutilsBug, 0o644)
	e.Write("tests/test_strutils.py", strutilsTest, 0o644)
	e.Write("tests/test_other.py", otherTests(), 0o644)
	return e, py
}

func pyEdit(path, content string) map[string]any {
	return map[string]any{"path": path, "content": content}
}

// The cheats that change the judge (docs/report.md, "The judge"), each a
// real edit an agent makes, against a real
// pytest run: none may win; the real fix does, with its fixed test named,
// and --apply writes only it.
func TestE2EVerdictPytestCheats(t *testing.T) {
	e2e.Parallel(t)
	// Copy mode sees the command's run-time changes by comparing the copy;
	// overlay mode in the upper dir.
	for _, mode := range []string{"overlay", "copy"} {
		t.Run(mode, func(t *testing.T) { pytestCheats(t, mode) })
	}
}

func pytestCheats(t *testing.T, mode string) {
	e, py := pyProject(t)
	weakened := strings.Replace(strutilsTest, "    assert bytes2human(2048) == \"2K\"\n    assert bytes2human(1000 * 1024) == \"1000K\"\n", "    pass\n", 1)
	skipped := strings.Replace(strutilsTest, "def test_bytes2human", "@pytest.mark.skip(reason='flaky')\ndef test_bytes2human", 1)
	// Imported first by tests/test_other.py (collected before
	// test_strutils.py), this rewrites the failing test before pytest reads
	// it: nothing the hypothesis proposes touches a test file.
	rewriter := strutilsBug + fmt.Sprintf("\nimport os as _os\n_p = _os.path.join(_os.path.dirname(__file__), '..', 'tests', 'test_strutils.py')\nwith open(_p, 'w') as _f:\n    _f.write(%q)\n", weakened)
	exit0 := strutilsBug + "\nimport atexit as _a, os as _os\n_a.register(lambda: _os._exit(0))\n"
	spec := e.Spec(map[string]any{
		"hypotheses": []any{
			map[string]any{"name": "baseline"},
			map[string]any{"name": "weaken_test", "edits": []any{pyEdit("tests/test_strutils.py", weakened)}},
			map[string]any{"name": "skip_test", "edits": []any{pyEdit("tests/test_strutils.py", skipped)}},
			map[string]any{"name": "delete_test", "delete": []string{"tests/test_strutils.py"}},
			map[string]any{"name": "deselect_pyproject", "edits": []any{pyEdit("pyproject.toml",
				"[tool.pytest.ini_options]\npythonpath = [\"src\"]\naddopts = \"--deselect tests/test_strutils.py::test_bytes2human\"\n")}},
			map[string]any{"name": "deselect_conftest", "edits": []any{pyEdit("conftest.py",
				"def pytest_collection_modifyitems(config, items):\n    items[:] = [i for i in items if 'bytes2human' not in i.name]\n")}},
			map[string]any{"name": "exit0", "edits": []any{pyEdit("src/strutils.py", exit0)}},
			map[string]any{"name": "rewrite_at_run_time", "edits": []any{pyEdit("src/strutils.py", rewriter)}},
			map[string]any{"name": "fix", "edits": []any{pyEdit("src/strutils.py", strutilsFix)}},
			map[string]any{"name": "wrong", "edits": []any{pyEdit("src/strutils.py", strings.Replace(strutilsBug, "1000", "1023", 1))}},
		},
		"command": []string{py, "-m", "pytest", "-q", "-p", "no:cacheprovider"},
	})
	before := e2e.Tree(t, e.WS)
	out, stderr, code := e.Shadow("--headless", "--json", "--apply", "--mode", mode, "-C", e.WS, spec)
	rep := e.Report(out)
	if rep.Mode != mode {
		t.Fatalf("ran in %s mode, not %s", rep.Mode, mode)
	}
	if code != 0 || rep.Winner == nil || *rep.Winner != "fix" {
		t.Fatalf("exit %d winner %v\n%s\n%s", code, rep.Winner, out, stderr)
	}
	m := e2e.ByName(rep)
	if f := m["fix"]; strings.Join(f.Fixed, ",") != "tests/test_strutils.py::test_bytes2human" || f.Broken == nil || len(f.Broken) != 0 || f.Disqualified != nil {
		t.Errorf("fix: fixed %v broken %v disqualified %v", f.Fixed, f.Broken, f.Disqualified)
	}
	reports := mode == "copy" || sandboxReportsChanges(t)
	// Edits of the judge never reach the judged run (docs/judge.md, "The
	// judged run"): each of
	// these is the bug under the checkout's tests, and fails.
	for name, judge := range map[string]string{
		"weaken_test": "tests/test_strutils.py", "skip_test": "tests/test_strutils.py", "delete_test": "tests/test_strutils.py",
		"deselect_pyproject": "pyproject.toml", "deselect_conftest": "conftest.py",
	} {
		r := m[name]
		if r.Status != "failed" || r.Disqualified != nil || strings.Join(r.JudgeEdits, ",") != judge || r.Rank <= m["fix"].Rank {
			t.Errorf("%s: status %s disqualified %q judge_edits %v rank %d", name, r.Status, e2e.Deref(r.Disqualified), r.JudgeEdits, r.Rank)
		}
	}
	for name, want := range map[string]string{
		"rewrite_at_run_time": "its command changed tests/test_strutils.py during the run",
	} {
		r := m[name]
		if name == "rewrite_at_run_time" && !reports {
			t.Logf("not checked: the overlay sandbox does not report what a command changed (engine.Outcome.Changed) on this tree")
			continue
		}
		if r.Status != "passed" || r.Disqualified == nil || !strings.Contains(*r.Disqualified, want) {
			t.Errorf("%s: status %s disqualified %q, want %q", name, r.Status, e2e.Deref(r.Disqualified), want)
		}
		if r.Rank <= m["fix"].Rank {
			t.Errorf("%s ranks %d, above the fix (%d)", name, r.Rank, m["fix"].Rank)
		}
	}
	if x := m["exit0"]; x.Status != "failed" || x.ExitCode == nil || *x.ExitCode != 0 || x.Tests == nil || x.Tests.Failed != 1 {
		t.Errorf("exit0: status %s exit %v tests %+v", x.Status, x.ExitCode, x.Tests)
	}
	if l := m["delete_test"].LostTests; l == nil || *l != 0 {
		t.Errorf("delete_test lost %v: judged with the checkout's tests, it runs them all", l)
	}
	// --apply wrote the fix and nothing else.
	if b, _ := os.ReadFile(filepath.Join(e.WS, "src", "strutils.py")); string(b) != strutilsFix {
		t.Errorf("src/strutils.py after --apply:\n%s", b)
	}
	os.WriteFile(filepath.Join(e.WS, "src", "strutils.py"), []byte(strutilsBug), 0o644)
	after := e2e.Tree(t, e.WS)
	if stripTimes(before) != stripTimes(after) {
		t.Errorf("--apply changed more than src/strutils.py")
	}

	// Without the fix, only disqualified candidates pass: no winner, exit 1.
	spec2 := e.Spec(map[string]any{
		"hypotheses": []any{map[string]any{"name": "baseline"}, map[string]any{"name": "weaken_test", "edits": []any{pyEdit("tests/test_strutils.py", weakened)}}},
		"command":    []string{py, "-m", "pytest", "-q", "-p", "no:cacheprovider"},
	})
	out, _, code = e.Shadow("--headless", "--mode", mode, "-C", e.WS, spec2)
	if code != 1 || !strings.Contains(out, "no hypothesis passed") || !strings.Contains(out, "weaken_test: judged without its own test changes: fails tests/test_strutils.py::test_bytes2human") {
		t.Errorf("exit %d\n%s", code, out)
	}
	// --allow-test-edits judges it as written: it wins.
	out, _, code = e.Shadow("--headless", "--allow-test-edits", "--mode", mode, "-C", e.WS, spec2)
	if code != 0 || !strings.Contains(out, "winner: weaken_test") {
		t.Errorf("--allow-test-edits: exit %d\n%s", code, out)
	}
}

// sandboxReportsChanges tries the real thing: a command that writes a
// file in an overlay job, and whether the outcome names it.
func sandboxReportsChanges(t *testing.T) bool {
	ws := t.TempDir()
	sb := overlay.New(t.TempDir(), nil)
	o, err := sb.Run(context.Background(), engine.Job{
		Workspace: ws, Hyp: engine.Hypothesis{Name: "probe"}, Command: []string{"sh", "-c", "echo x > probe.txt"},
		Env: os.Environ(), Net: "host", Tmp: "shared", Output: io.Discard,
	})
	if err != nil {
		t.Fatalf("overlay probe job: %v", err)
	}
	return slices.Contains(o.Changed, "probe.txt")
}

// stripTimes drops the mtimes from a tree listing: --apply and the restore
// above rewrite src/strutils.py.
func stripTimes(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if f := strings.Fields(l); len(f) > 4 && len(f[1]) == 10 && (f[1][0] == '-' || f[1][0] == 'd') {
			l = strings.Join(f[:3], " ")
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// The lucky candidate fails every second run: its own code keeps a counter
// in a directory outside the workspace (FLAKY_DIR), so the outcome does not
// depend on scheduling. It has the smaller diff: without --confirm it wins;
// with --confirm 2 it fails a rerun, the stable fix wins, and the flaky test
// is named.
func TestE2EVerdictConfirmCatchesFlaky(t *testing.T) {
	e, py := pyProject(t)
	counter := t.TempDir()
	os.Chmod(counter, 0o777)
	lucky := strings.Replace(strutilsBug, "        n = n // 1000\n", "        n = n // (1000 if _BAD else 1024)\n", 1) +
		"\nimport os as _os\n_c = _os.path.join(_os.environ['FLAKY_DIR'], 'lucky')\n_n = int(open(_c).read()) + 1 if _os.path.exists(_c) else 1\nopen(_c, 'w').write(str(_n))\n_BAD = _n % 2 == 0\n"
	stable := strutilsFix + "\n\n# bytes2human: 1 K = 1024 B, as in the docs.\n" + strings.Repeat("# (a longer diff than the lucky one)\n", 8)
	spec := e.Spec(map[string]any{
		"hypotheses": []any{
			map[string]any{"name": "baseline"},
			map[string]any{"name": "lucky", "edits": []any{pyEdit("src/strutils.py", lucky)}},
			map[string]any{"name": "stable", "edits": []any{pyEdit("src/strutils.py", stable)}},
		},
		"command": []string{py, "-m", "pytest", "-q", "-p", "no:cacheprovider"},
		"env":     map[string]string{"FLAKY_DIR": counter, "PYTHONDONTWRITEBYTECODE": "1"},
		// The counter is state the runs share: the host's /tmp, not each
		// hypothesis's own (the seal's default).
		"tmp": "shared",
	})
	out, stderr, code := e.Shadow("--headless", "--json", "-C", e.WS, spec)
	rep := e.Report(out)
	if code != 0 || rep.Winner == nil || *rep.Winner != "lucky" {
		t.Fatalf("without --confirm: exit %d winner %v (the lucky one should win)\n%s\n%s", code, rep.Winner, out, stderr)
	}
	if m := e2e.ByName(rep); m["lucky"].Runs != 1 || m["lucky"].Flaky != nil || rep.BaselineFlaky != nil {
		t.Errorf("one run: runs %d flaky %v baseline_flaky %v", m["lucky"].Runs, m["lucky"].Flaky, rep.BaselineFlaky)
	}

	os.Remove(filepath.Join(counter, "lucky"))
	out, stderr, code = e.Shadow("--headless", "--json", "--confirm", "2", "-C", e.WS, spec)
	rep = e.Report(out)
	if code != 0 || rep.Winner == nil || *rep.Winner != "stable" {
		t.Fatalf("--confirm 2: exit %d winner %v\n%s\n%s", code, rep.Winner, out, stderr)
	}
	m := e2e.ByName(rep)
	if l := m["lucky"]; l.Runs != 3 || l.Passes != 2 || strings.Join(l.Flaky, ",") != "tests/test_strutils.py::test_bytes2human" || l.Status != "failed" {
		t.Errorf("lucky: runs %d passes %d flaky %v status %s", l.Runs, l.Passes, l.Flaky, l.Status)
	}
	if s := m["stable"]; s.Runs != 3 || s.Passes != 3 || strings.Join(s.Fixed, ",") != "tests/test_strutils.py::test_bytes2human" {
		t.Errorf("stable: runs %d passes %d fixed %v", s.Runs, s.Passes, s.Fixed)
	}
	if b := m["baseline"]; b.Runs != 3 || rep.BaselineFlaky == nil || len(rep.BaselineFlaky) != 0 {
		t.Errorf("baseline: runs %d, baseline_flaky %v", b.Runs, rep.BaselineFlaky)
	}
}

// The spec's common part (one reproduction test for every candidate, as
// Agentless adds it) reaches the baseline too, judges the candidates, and
// is never applied.
func TestE2EVerdictCommonReproTest(t *testing.T) {
	e, py := pyProject(t)
	repro := "from strutils import bytes2human\n\n\ndef test_repro_mega():\n    assert bytes2human(1000 * 1024 * 1024) == '1000M'\n"
	spec := e.Spec(map[string]any{
		"hypotheses": []any{
			map[string]any{"name": "fix", "edits": []any{pyEdit("src/strutils.py", strutilsFix)}},
			map[string]any{"name": "cheat", "edits": []any{pyEdit("tests/test_repro.py", "def test_repro_mega():\n    pass\n")}},
		},
		"common":  map[string]any{"edits": []any{pyEdit("tests/test_repro.py", repro)}},
		"command": []string{py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_repro.py"},
	})
	out, stderr, code := e.Shadow("--headless", "--json", "--baseline", "--apply", "-C", e.WS, spec)
	rep := e.Report(out)
	if code != 0 || rep.Winner == nil || *rep.Winner != "fix" {
		t.Fatalf("exit %d winner %v\n%s\n%s", code, rep.Winner, out, stderr)
	}
	m := e2e.ByName(rep)
	if b := m["baseline"]; b.Tests == nil || b.Tests.Failed != 1 {
		t.Errorf("the baseline did not run the common test: %+v", b.Tests)
	}
	if f := m["fix"]; strings.Join(f.Fixed, ",") != "tests/test_repro.py::test_repro_mega" || strings.Join(f.Files, ",") != "src/strutils.py" {
		t.Errorf("fix: fixed %v files %v", f.Fixed, f.Files)
	}
	// Its own version of the common test is not what it is judged by.
	if c := m["cheat"]; c.Status != "failed" || strings.Join(c.JudgeEdits, ",") != "tests/test_repro.py" {
		t.Errorf("cheat: status %s judge_edits %v", c.Status, c.JudgeEdits)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "tests", "test_repro.py")); err == nil {
		t.Errorf("--apply wrote the common test into the checkout")
	}
	// The recorded fix carries only its own file: shadow apply writes it alone.
	os.WriteFile(filepath.Join(e.WS, "src", "strutils.py"), []byte(strutilsBug), 0o644)
	out, stderr, code = e.Shadow("apply", "-C", e.WS, "@last/fix")
	if code != 0 {
		t.Fatalf("shadow apply: exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "tests", "test_repro.py")); err == nil {
		t.Errorf("shadow apply wrote the common test into the checkout")
	}
	// A recorded hypothesis used as a base brings its own files, not its
	// run's common part.
	os.WriteFile(filepath.Join(e.WS, "src", "strutils.py"), []byte(strutilsBug), 0o644)
	spec2 := e.Spec(map[string]any{
		"hypotheses": []any{map[string]any{"name": "next", "base": "@last/fix"}},
		"command":    []string{"sh", "-c", "grep -q '// 1024' src/strutils.py && test ! -e tests/test_repro.py && echo '1 passed, 0 failed'"},
	})
	out, stderr, code = e.Shadow("--headless", "-C", e.WS, spec2)
	if code != 0 {
		t.Errorf("a base carried its run's common file, or not its own: exit %d\n%s\n%s", code, out, stderr)
	}
}
