package judge

import (
	"path"
	"sort"
	"strings"
)

// The judge (docs/report.md) is what decides whether a candidate passed: the test
// files, the runners' configuration and the spec's common files. A candidate
// that changes it may pass without fixing anything (ImpossibleBench's
// "modify the tests" route), so every path a hypothesis proposes, and every
// path its command changed at run time, is checked against it.

// DefaultTestPaths are the test-file conventions of the usual ecosystems,
// used when the spec has no "test_paths". Rust's tests/ is covered by
// **/tests/**; files holding only #[cfg(test)] modules are not guessed.
var DefaultTestPaths = []string{
	"**/test/**", "**/tests/**", "**/__tests__/**", "**/spec/**", "**/testdata/**",
	"**/test_*.py", "**/*_test.py", "**/conftest.py", "**/*_test.go",
	"**/*.test.*", "**/*.spec.*",
}

// runnerConfigs are the base names of files that configure which tests run
// and how they are judged: a candidate that edits one can deselect, skip or
// mark tests as expected failures without touching a test file.
var runnerConfigs = map[string]bool{
	"pytest.ini": true, "pyproject.toml": true, "setup.cfg": true, "tox.ini": true,
	"noxfile.py": true, "conftest.py": true, ".coveragerc": true,
	"package.json": true, ".mocharc.js": true, ".mocharc.cjs": true, ".mocharc.json": true, ".mocharc.yml": true, ".mocharc.yaml": true,
	"Cargo.toml": true,
	"Makefile":   true, "makefile": true, "GNUmakefile": true, "justfile": true, "Justfile": true,
	"CMakeLists.txt": true, "meson.build": true, "phpunit.xml": true, "phpunit.xml.dist": true,
}

// runnerConfigPrefixes are base-name prefixes of runner configuration in
// any of its extensions (jest.config.ts, vitest.config.mts...).
var runnerConfigPrefixes = []string{"jest.config.", "vitest.config.", "vitest.workspace.", "vite.config.", "karma.conf.", "playwright.config.", "cypress.config."}

// runtimeNoise are directories and files runners and interpreters write
// while testing; a command that writes them has not changed the judge.
// Only the command's run-time changes are filtered so: a hypothesis that
// proposes such a path is still judged by its name.
var runtimeNoise = []string{"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", ".tox", ".nox",
	"node_modules", ".vite", ".vitest", ".cache", ".nyc_output", "coverage", "htmlcov", "target", ".gradle", "build", "dist", ".jest-cache"}

// judge decides which workspace-relative paths belong to the judge.
type judge struct {
	globs  []string
	common map[string]bool
	// collected is what the command's runner said its tests are
	// (collect.go); nil where it was not asked.
	collected *testCollection
}

func newJudge(testPaths []string, common []string) *judge {
	if len(testPaths) == 0 {
		testPaths = DefaultTestPaths
	}
	j := &judge{globs: testPaths, common: map[string]bool{}}
	for _, p := range common {
		j.common[p] = true
	}
	return j
}

// is reports whether p (workspace-relative, '/'-separated) is a judge file.
func (j *judge) is(p string) bool {
	if j.common[p] || j.collected.collects(p) {
		return true
	}
	base := path.Base(p)
	if runnerConfigs[base] || strings.HasSuffix(p, ".cargo/config.toml") || strings.HasSuffix(p, ".cargo/config") {
		return true
	}
	for _, pre := range runnerConfigPrefixes {
		if strings.HasPrefix(base, pre) {
			return true
		}
	}
	for _, g := range j.globs {
		if matchGlob(g, p) {
			return true
		}
	}
	return false
}

// isNoise reports whether a path the command wrote is a runner's or an
// interpreter's cache rather than a change to the judge.
func isNoise(p string) bool {
	if strings.HasSuffix(p, ".pyc") || strings.HasSuffix(p, ".pyo") || path.Base(p) == ".coverage" || strings.HasPrefix(path.Base(p), ".coverage.") {
		return true
	}
	for _, c := range strings.Split(p, "/") {
		for _, n := range runtimeNoise {
			if c == n {
				return true
			}
		}
	}
	return false
}

// judgePaths returns the sorted judge paths among paths.
func (j *judge) judgePaths(paths []string, dropNoise bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] || (dropNoise && isNoise(p)) || !j.is(p) {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// commonPaths lists every path a hypothesis got from the spec's common part.
func commonPaths(hyps []Hypothesis) []string {
	var out []string
	for _, h := range hyps {
		for _, f := range h.Common {
			out = append(out, f.Path)
		}
		out = append(out, h.CommonDeletes...)
	}
	return out
}

// proposedPaths is every path a hypothesis writes or deletes of its own.
func proposedPaths(h Hypothesis) []string {
	out := make([]string, 0, len(h.Files)+len(h.Deletes))
	for _, f := range h.Files {
		out = append(out, f.Path)
	}
	return append(out, h.Deletes...)
}

// matchGlob matches a '/'-separated path against a glob where "*", "?" and
// "[...]" work as in path.Match within one component and "**" matches any
// number of components (none included). A glob without "/" matches the
// base name at any depth, as in .gitignore.
func matchGlob(glob, p string) bool {
	if !strings.Contains(glob, "/") {
		ok, _ := path.Match(glob, path.Base(p))
		return ok
	}
	return matchParts(strings.Split(glob, "/"), strings.Split(p, "/"))
}

func matchParts(g, p []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for len(g) > 0 && g[0] == "**" {
				g = g[1:]
			}
			if len(g) == 0 {
				return true
			}
			for i := 0; i <= len(p); i++ {
				if matchParts(g, p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, _ := path.Match(g[0], p[0]); !ok {
			return false
		}
		g, p = g[1:], p[1:]
	}
	return len(p) == 0
}
