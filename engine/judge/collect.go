package judge

import (
	"context"
	"path"
	"path/filepath"
	"strings"
)

// Which files are tests is the runner's to say (docs/report.md, "The
// judge"): a project whose tests live in check_*.py, spec/**/*.check.ts or
// a chk_*.py discovery pattern has a judge no default glob names, and a
// candidate weakening such a file was judged as code while a real fix's
// regression test appended there was run as code and looked forged. So
// before any candidate runs, the run asks the command's runner, on the
// checkout alone, which files it collects:
//
//   - pytest: its own collection (`--collect-only`) with the command's
//     arguments, run sealed in the sandbox as a hypothesis with no changes
//     (collect_pytest.go). Collection is code (conftest.py hooks, plugins,
//     four config files with their precedence, addopts, -o): only pytest
//     knows its answer, and the checkout's code is what the baseline runs
//     anyway. Where that fails, the configuration read as pytest reads it
//     (python_files, testpaths).
//   - unittest: the discovery pattern and start directory of the command
//     (`-p`, `-s`), or the modules it names (collect_unittest.go).
//   - go test: the go command's rule, files ending in _test.go ("go help
//     test"); nothing configures it, so nothing is run.
//   - vitest and jest: the include globs of their configuration (vitest's
//     test.include, jest's testMatch, testRegex and roots), read without
//     executing it (collect_node.go): their config files are programs, and
//     a list of globs is what they nearly always hold.
//   - cargo: Cargo.toml's [[test]] targets (collect_cargo.go).
//
// Nothing a candidate writes is seen: the collection runs, or the config
// is read, on the checkout before the first hypothesis starts. What it
// names is added to the judge (the spec's test_paths or DefaultTestPaths
// and the runners' config files stay judge files): it never makes a file
// code that naming made a test.

// testCollection is what the runner said its tests are.
type testCollection struct {
	runner string // "pytest", "unittest", "go", "vitest", "jest", "cargo"
	via    string // how: "collection", "config", "rule"
	files  map[string]bool
	globs  []*runnerGlob
	note   string // why the runner's own answer was not had, when it was not
	// inPackage, when set, must hold too of a file the globs name: the
	// directories unittest's discovery descends into (collect_unittest.go).
	inPackage func(p string) bool
}

// collects reports whether the runner collects p (workspace-relative), a
// file of the checkout. Where the runner listed its files (via
// "collection"), that list is exact: a python_files = *.py names every
// module, but pytest collects only those that hold tests.
func (c *testCollection) collects(p string) bool {
	if c == nil {
		return false
	}
	if c.files[p] {
		return true
	}
	return c.via != "collection" && c.matches(p)
}

// collectsNew reports whether the runner would collect p, a file the
// checkout does not have: its globs say.
func (c *testCollection) collectsNew(p string) bool {
	return c != nil && c.matches(p)
}

func (c *testCollection) matches(p string) bool {
	for _, g := range c.globs {
		if g.match(p) {
			return c.inPackage == nil || c.inPackage(p)
		}
	}
	return false
}

// Collection is the report's view of a testCollection.
func (c *testCollection) report() *TestCollection {
	if c == nil {
		return nil
	}
	tc := &TestCollection{Runner: c.runner, Via: c.via, Files: sortedKeys(c.files), Globs: []string{}, Note: c.note}
	for _, g := range c.globs {
		s := g.glob
		if g.base != "" && g.base != "." {
			s = g.base + ": " + g.glob
		}
		tc.Globs = append(tc.Globs, s)
	}
	return tc
}

// collectTests asks the command's runner which files are tests, on the
// checkout (nil: no runner it knows, or nothing it said beyond naming).
func collectTests(ctx context.Context, cfg *Config) *testCollection {
	inv := runnerInvocation(filepath.Join(cfg.Workspace, filepath.FromSlash(cfg.Subdir)), cfg.Command)
	if inv == nil {
		return nil
	}
	var c *testCollection
	switch inv.runner {
	case "pytest":
		c = collectPytest(ctx, cfg, inv)
	case "unittest":
		c = collectUnittest(cfg.Workspace, cfg.Subdir, inv)
	case "go":
		g := newRunnerGlob("", "**/*_test.go")
		c = &testCollection{runner: "go", via: "rule", globs: []*runnerGlob{g}}
	case "vitest":
		c = collectVitest(cfg.Workspace, cfg.Subdir, inv)
	case "jest":
		c = collectJest(cfg.Workspace, cfg.Subdir, inv)
	case "cargo":
		c = collectCargo(cfg.Workspace, cfg.Subdir)
	}
	return c
}

// invocation is the runner a command runs and its arguments.
type invocation struct {
	runner string
	// argv is the whole command when it is one process's argv (not a
	// shell string or an npm script): what may be run again with other
	// arguments. pre is argv up to the runner (`python3 -m pytest`), args
	// what follows it.
	argv      bool
	pre, args []string
}

// runnerInvocation finds the runner of the last command of the command
// line (or of the npm script it runs), as the canary does (canary.go).
func runnerInvocation(dir string, command []string) *invocation {
	if len(command) == 0 {
		return nil
	}
	words, argv := command, true
	if len(command) >= 3 && (path.Base(command[0]) == "sh" || path.Base(command[0]) == "bash") && command[1] == "-c" {
		words, argv = lastCommand(command[2]), false
	}
	if npmScript.MatchString(path.Base(command[0])) && len(command) >= 2 {
		script := command[1]
		if script == "run" && len(command) >= 3 {
			script = command[2]
		}
		if s := packageScript(dir, script); s != "" {
			words, argv = lastCommand(s), false
		}
	}
	for i, w := range words {
		b := path.Base(w)
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		if m, ok := strings.CutPrefix(w, "-m"); ok && m != "" && !strings.HasPrefix(w, "--") {
			// python's -mMODULE, as the makefile of python-json-pointer
			// writes it.
			if m == "pytest" || m == "py.test" || m == "unittest" {
				return &invocation{runner: map[bool]string{true: "unittest", false: "pytest"}[m == "unittest"], argv: argv, pre: words[:i+1], args: words[i+1:]}
			}
		}
		inv := &invocation{argv: argv}
		switch {
		case b == "pytest" || b == "py.test" || (w == "-m" && (next == "pytest" || next == "py.test")):
			inv.runner = "pytest"
		case w == "-m" && next == "unittest":
			inv.runner = "unittest"
		case b == "vitest" || b == "vitest.mjs":
			inv.runner = "vitest"
		case b == "jest" || b == "jest.js":
			inv.runner = "jest"
		case b == "go" && next == "test":
			inv.runner = "go"
		case b == "cargo" && (next == "test" || next == "nextest"):
			inv.runner = "cargo"
		default:
			continue
		}
		end := i + 1
		if w == "-m" || inv.runner == "go" || inv.runner == "cargo" {
			end = i + 2
		}
		inv.pre, inv.args = words[:end], words[end:]
		return inv
	}
	return nil
}

// lastCommand is the words of the last command of a shell line (a runner
// earlier in a chain is not what decides the exit status), without its
// leading variable assignments.
func lastCommand(line string) []string {
	parts := chainSep.Split(line, -1)
	words := shellWords(parts[len(parts)-1])
	for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
		words = words[1:]
	}
	return words
}

// shellWords splits a simple shell command into words: blanks separate,
// single and double quotes group, a backslash escapes (sh(1)'s quoting;
// no expansion).
func shellWords(s string) []string {
	var out []string
	var w strings.Builder
	in, has := byte(0), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in != 0 && c == in:
			in = 0
		case in == '\'':
			w.WriteByte(c)
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			has = true
		case in == 0 && (c == '\'' || c == '"'):
			in, has = c, true
		case in == 0 && (c == ' ' || c == '\t' || c == '\n'):
			if has {
				out = append(out, w.String())
				w.Reset()
				has = false
			}
		default:
			w.WriteByte(c)
			has = true
		}
	}
	if has {
		out = append(out, w.String())
	}
	return out
}

// relTo joins a path the runner gave relative to dir (workspace-relative,
// "" the root) and cleans it ("" the root); false when it leaves the
// workspace.
func relTo(dir, p string) (string, bool) {
	if path.IsAbs(p) {
		return "", false
	}
	j := path.Clean(path.Join(dir, p))
	if j == ".." || strings.HasPrefix(j, "../") {
		return "", false
	}
	if j == "." {
		j = ""
	}
	return j, true
}
