//go:build linux

package judge

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// One end-to-end run per installable test runner through the real binary:
// a baseline whose add test fails and a fix, checking that the counts come
// from the runner's own output, the fix wins and names the test it fixed.
// .ci/run installs the runners; a missing one skips with its name.

type runnerCase struct {
	name      string
	needs     []string          // executables that must exist
	files     map[string]string // the workspace
	fixPath   string
	fix       string
	command   []string
	framework string
	fixedName string // a substring of the test fix must list in fixed
	jsModules bool   // link the npm fixture's node_modules into the workspace
}

func runnerCases() []runnerCase {
	pyCalc := "def add(a, b):\n    return a - b\n\ndef sub(a, b):\n    return a - b\n"
	pyFix := strings.Replace(pyCalc, "return a - b", "return a + b", 1)
	jsCalc := "function add(a, b) { return a - b }\nfunction sub(a, b) { return a - b }\nmodule.exports = { add, sub }\n"
	jsFix := strings.Replace(jsCalc, "return a - b", "return a + b", 1)
	cCalc := "int add(int a, int b) { return a - b; }\n"
	cFix := "int add(int a, int b) { return a + b; }\n"
	cTest := func(name, expr string) string {
		return "int add(int, int);\nint main(void) { return " + expr + " ? 0 : 1; }\n"
	}
	return []runnerCase{
		{name: "go", needs: []string{"go"}, files: map[string]string{
			"go.mod":       "module calc\n\ngo 1.21\n",
			"calc.go":      "package calc\n\nfunc Add(a, b int) int { return a - b }\nfunc Sub(a, b int) int { return a - b }\n",
			"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n\nfunc TestSub(t *testing.T) {\n\tif Sub(5, 3) != 2 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n",
		}, fixPath: "calc.go", fix: "package calc\n\nfunc Add(a, b int) int { return a + b }\nfunc Sub(a, b int) int { return a - b }\n",
			command: []string{"go", "test", "-v", "./..."}, framework: "go", fixedName: "TestAdd"},
		{name: "cargo", needs: []string{"cargo"}, files: map[string]string{
			"Cargo.toml": "[package]\nname = \"calc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
			"src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(2, 3), 5); }\n    #[test]\n    fn zero() { assert_eq!(super::add(0, 0), 0); }\n}\n",
		}, fixPath: "src/lib.rs", fix: "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(2, 3), 5); }\n    #[test]\n    fn zero() { assert_eq!(super::add(0, 0), 0); }\n}\n",
			command: []string{"cargo", "test", "--offline"}, framework: "cargo", fixedName: "adds"},
		{name: "pytest", needs: []string{"/usr/bin/python3"}, files: map[string]string{
			"calc.py":      pyCalc,
			"test_calc.py": "from calc import add, sub\n\ndef test_add():\n    assert add(2, 3) == 5\n\ndef test_sub():\n    assert sub(5, 3) == 2\n",
		}, fixPath: "calc.py", fix: pyFix, command: []string{"/usr/bin/python3", "-m", "pytest", "-v", "-p", "no:cacheprovider"}, framework: "pytest", fixedName: "test_add"},
		{name: "unittest", needs: []string{"python3"}, files: map[string]string{
			"calc.py":      pyCalc,
			"test_calc.py": "import unittest\nfrom calc import add, sub\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n    def test_sub(self):\n        self.assertEqual(sub(5, 3), 2)\n",
		}, fixPath: "calc.py", fix: pyFix, command: []string{"python3", "-B", "-m", "unittest", "-v"}, framework: "unittest", fixedName: "test_add"},
		{name: "node", needs: []string{"node"}, files: map[string]string{
			"calc.js":      jsCalc,
			"calc.test.js": "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add, sub } = require('./calc');\ntest('add', () => assert.strictEqual(add(2, 3), 5));\ntest('sub', () => assert.strictEqual(sub(5, 3), 2));\n",
		}, fixPath: "calc.js", fix: jsFix, command: []string{"node", "--test", "--test-reporter=tap"}, framework: "node", fixedName: "add"},
		{name: "jest", needs: []string{"node"}, jsModules: true, files: map[string]string{
			"package.json": `{"name": "calc", "private": true}` + "\n",
			"calc.js":      jsCalc,
			"calc.test.js": "const { add, sub } = require('./calc');\ntest('add', () => expect(add(2, 3)).toBe(5));\ntest('sub', () => expect(sub(5, 3)).toBe(2));\n",
		}, fixPath: "calc.js", fix: jsFix, command: []string{"node", "node_modules/jest/bin/jest.js", "--ci", "--verbose"}, framework: "jest", fixedName: "add"},
		{name: "vitest", needs: []string{"node"}, jsModules: true, files: map[string]string{
			"calc.js":      jsCalc,
			"calc.test.js": "import { test, expect } from 'vitest';\nimport { add, sub } from './calc';\ntest('add', () => expect(add(2, 3)).toBe(5));\ntest('sub', () => expect(sub(5, 3)).toBe(2));\n",
		}, fixPath: "calc.js", fix: jsFix, command: []string{"node", "node_modules/vitest/vitest.mjs", "run", "--reporter=verbose"}, framework: "vitest", fixedName: "add"},
		{name: "ctest", needs: []string{"cmake", "ctest", "cc"}, files: map[string]string{
			"CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(calc C)\nenable_testing()\nadd_library(calc calc.c)\nadd_executable(t_add t_add.c)\ntarget_link_libraries(t_add calc)\nadd_executable(t_zero t_zero.c)\ntarget_link_libraries(t_zero calc)\nadd_test(NAME add COMMAND t_add)\nadd_test(NAME zero COMMAND t_zero)\n",
			"calc.c":         cCalc, "t_add.c": cTest("add", "add(2, 3) == 5"), "t_zero.c": cTest("zero", "add(0, 0) == 0"),
		}, fixPath: "calc.c", fix: cFix, command: []string{"sh", "-c", "cmake -S . -B build >/dev/null && cmake --build build >/dev/null && cd build && ctest"}, framework: "ctest", fixedName: "add"},
		{name: "meson", needs: []string{"meson", "ninja", "cc"}, files: map[string]string{
			"meson.build": "project('calc', 'c')\nlib = static_library('calc', 'calc.c')\ntest('add', executable('t_add', 't_add.c', link_with: lib))\ntest('zero', executable('t_zero', 't_zero.c', link_with: lib))\n",
			"calc.c":      cCalc, "t_add.c": cTest("add", "add(2, 3) == 5"), "t_zero.c": cTest("zero", "add(0, 0) == 0"),
		}, fixPath: "calc.c", fix: cFix, command: []string{"sh", "-c", "meson setup build >/dev/null && meson test -C build"}, framework: "meson", fixedName: "add"},
	}
}

func TestE2ERunners(t *testing.T) {
	e2e.Parallel(t)
	jsFixture, _ := filepath.Abs(filepath.Join("testdata", "runners", "js", "node_modules"))
	for _, rc := range runnerCases() {
		t.Run(rc.name, func(t *testing.T) {
			// Each runner has its own checkout and state dir; a runner
			// mostly waits on its tools' start-up (python, node, meson),
			// so the cases overlap.
			t.Parallel()
			for _, n := range rc.needs {
				if _, err := exec.LookPath(n); err != nil {
					t.Skipf("%s not installed (.ci/run installs it)", n)
				}
			}
			if rc.jsModules {
				if _, err := os.Stat(jsFixture); err != nil {
					t.Skipf("run `npm ci --prefix testdata/runners/js` first (.ci/run does)")
				}
			}
			e := e2e.NewEnv(t)
			for p, c := range rc.files {
				e.Write(p, c, 0o644)
			}
			if rc.jsModules {
				if err := os.Symlink(jsFixture, filepath.Join(e.WS, "node_modules")); err != nil {
					t.Fatal(err)
				}
			}
			before := e2e.Tree(t, e.WS)
			spec := e.Spec(map[string]any{"hypotheses": []any{
				map[string]any{"name": "baseline"},
				map[string]any{"name": "fix", "edits": []any{map[string]any{"path": rc.fixPath, "content": rc.fix}}},
			}})
			out, stderr, code := e.Shadow(append(append(append([]string{"--headless", "--json", "-C", e.WS}, e2e.SharedTmpIfLinked(e.WS)...), spec, "--"), rc.command...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			r := e.Report(out)
			h := e2e.ByName(r)
			fix, base := h["fix"], h["baseline"]
			if r.Winner == nil || *r.Winner != "fix" {
				t.Fatalf("winner %v; baseline tail:\n%s\nfix tail:\n%s", r.Winner, base.OutputTail, fix.OutputTail)
			}
			if fix.Tests == nil || !strings.Contains(fix.Tests.Framework, rc.framework) || fix.Tests.Passed != 2 || fix.Tests.Failed != 0 {
				t.Errorf("fix tests %+v\n%s", fix.Tests, fix.OutputTail)
			}
			if base.Tests == nil || base.Tests.Passed != 1 || base.Tests.Failed != 1 {
				t.Errorf("baseline tests %+v\n%s", base.Tests, base.OutputTail)
			}
			if len(fix.Fixed) != 1 || !strings.Contains(fix.Fixed[0], rc.fixedName) {
				t.Errorf("fixed %v, want one naming %q", fix.Fixed, rc.fixedName)
			}
			if after := e2e.Tree(t, e.WS); after != before {
				t.Errorf("workspace changed by the run")
			}
		})
	}
}
