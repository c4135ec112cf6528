//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// The candidates of docs/judge.md ("Cross-examination"), as agents write
// them, against real runners (testdata/judge/RUNNER: ws/ is the checkout, a
// bug in add() with one failing test; spec.json proposes, in this order, an
// overfit that special-cases the failing input, a fix with a new test file, a
// fix with a test appended to the existing file, a bare fix, and a candidate
// that only weakens the failing test; spec-tests-only.json the two fixes that
// bring tests).

type JudgeRunner struct {
	Dir     string
	Command []string
	Js      bool // link the npm fixture's node_modules into the workspace
	Needs   string
}

func JudgeRunners(t *testing.T) []JudgeRunner {
	return []JudgeRunner{
		{Dir: "pytest", Command: []string{PythonWithPytest(t), "-m", "pytest", "-q", "-p", "no:cacheprovider"}},
		{Dir: "unittest", Command: []string{"python3", "-B", "-m", "unittest", "discover", "-s", "tests", "-t", ".", "-v"}, Needs: "python3"},
		{Dir: "go", Command: []string{"go", "test", "-count=1", "./..."}, Needs: "go"},
		{Dir: "vitest", Command: []string{"node", "node_modules/vitest/vitest.mjs", "run"}, Js: true, Needs: "node"},
		{Dir: "jest", Command: []string{"node", "node_modules/jest/bin/jest.js", "--ci"}, Js: true, Needs: "node"},
	}
}

// JudgeEnv is a workspace holding testdata/judge/DIR/ws, and the flags
// its runs need.
func JudgeEnv(t *testing.T, rn JudgeRunner) (*Env, []string) {
	if rn.Needs != "" {
		if _, err := exec.LookPath(rn.Needs); err != nil {
			t.Skipf("%s not installed", rn.Needs)
		}
	}
	e := NewEnv(t)
	src := filepath.Join("testdata", "judge", rn.Dir, "ws")
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err == nil {
			e.Write(rel, string(b), 0o644)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var flags []string
	if rn.Js {
		mods, _ := filepath.Abs(filepath.Join("testdata", "runners", "js", "node_modules"))
		if _, err := os.Stat(filepath.Join(mods, "vitest")); err != nil {
			t.Skipf("run `npm ci --prefix testdata/runners/js` first (.ci/run does)")
		}
		if err := os.Symlink(mods, filepath.Join(e.WS, "node_modules")); err != nil {
			t.Fatal(err)
		}
		// The unprivileged CI pass keeps the fixture under /tmp, which a
		// sandbox sees as a fresh tmpfs unless --tmp shared.
		if strings.HasPrefix(mods, os.TempDir()+"/") {
			flags = append(flags, "--tmp", "shared")
		}
	}
	return e, flags
}

func JudgeSpec(t *testing.T, rn JudgeRunner, name string) string {
	p, err := filepath.Abs(filepath.Join("testdata", "judge", rn.Dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ProposedString(p []engine.ProposedTest) string {
	var s []string
	for _, t := range p {
		r := "?"
		if t.Reproduces != nil {
			r = map[bool]string{true: "repro", false: "no-repro"}[*t.Reproduces]
		}
		s = append(s, t.Path+"::"+t.Test+"("+r+")")
	}
	return "[" + strings.Join(s, ", ") + "]"
}
