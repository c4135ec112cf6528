package scan

import (
	"path"
	"regexp"
	"strings"
)

// runnerEnv reports whether an environment variable's name can tell a
// test run from a user's: what the runners set (pytest's PYTEST_*
// (pytest docs, "Environment variables"), vitest's VITEST*, TEST and MODE,
// jest's JEST_WORKER_ID, node --test's NODE_TEST_CONTEXT, npm's
// npm_lifecycle_event for "npm test"), shadow's own SHADOW_* (sharding),
// the shell's "_" (the command that started the process), and, as a
// class, any name with a TEST word in it. NODE_ENV is left to the rule that
// compares it with "test": "production" checks are everywhere.
func runnerEnv(name string) bool {
	u := strings.ToUpper(name)
	switch {
	case name == "_", u == "TEST", u == "MODE":
		return true
	case strings.HasPrefix(u, "PYTEST"), strings.HasPrefix(u, "VITEST"), strings.HasPrefix(u, "JEST"),
		strings.HasPrefix(u, "NODE_TEST"), strings.HasPrefix(u, "NPM_LIFECYCLE"), strings.HasPrefix(u, "SHADOW"),
		strings.HasPrefix(u, "GOTEST"), strings.HasPrefix(u, "UNITTEST"), strings.HasPrefix(u, "NOSE_"),
		strings.HasPrefix(u, "MOCHA"), strings.HasPrefix(u, "HYPOTHESIS"):
		return true
	}
	for _, w := range strings.FieldsFunc(u, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		switch w {
		case "TEST", "TESTS", "TESTING", "PYTEST", "JEST", "VITEST", "UNITTEST", "TESTRUN", "TESTRUNNER":
			return true
		}
	}
	return false
}

// runnerPyModule: Python modules that are the test runner or its
// assertion machinery. unittest.mock is a library, not the runner.
func runnerPyModule(m string) bool {
	root, _, _ := strings.Cut(m, ".")
	switch root {
	case "pytest", "_pytest", "pluggy", "nose", "nose2", "doctest", "xdist":
		return true
	case "unittest":
		return m != "unittest.mock" && !strings.HasPrefix(m, "unittest.mock.")
	}
	return false
}

// runnerJSModule: JavaScript packages that are a runner or an assertion
// library.
func runnerJSModule(m string) bool {
	m = strings.TrimPrefix(m, "node:")
	switch m {
	case "vitest", "jest", "expect", "chai", "mocha", "test", "ava", "uvu", "tap", "jasmine", "assert", "assert/strict", "should", "power-assert":
		return true
	}
	for _, p := range []string{"vitest/", "@vitest/", "@jest/", "jest-", "chai-", "expect/", "uvu/"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// jsRunnerGlobals are what jest, vitest (globals: true) and mocha put on
// globalThis for the test files.
var jsRunnerGlobals = map[string]bool{
	"jest": true, "vi": true, "expect": true, "describe": true, "it": true, "test": true, "jasmine": true,
	"beforeAll": true, "beforeEach": true, "afterAll": true, "afterEach": true, "suite": true, "vitest": true,
	"assert": true, "chai": true,
}

// testPathLit matches a string that names a file or directory a runner
// treats as a test or as its configuration: Go's *_test.go, pytest's
// test_*.py / *_test.py / conftest.py / pytest.ini, tox.ini, jest's and
// vitest's *.test.* / *.spec.* / __tests__ and their config files, a
// tests/ directory. Interpolations are "*".
var testPathLit = regexp.MustCompile(`(?i)(_test\.go\b|(^|[/\\*.])test_[\w*]*(\.py\b|$)|_test\.py\b|\bconftest\b|\bpytest\.ini\b|\btox\.ini\b|\.pytest_cache|\.(test|spec)\.([cm]?[jt]sx?\b|\*)|\b__tests__\b|\b(vitest|jest|vite)\.(config|workspace)\b|\bjest\.setup|\bvitest\.setup|(^|[/\\])tests?[/\\]|[/\\]tests?$|^\*+test\*?$|^test\*|\.coveragerc)`)

// testPathValue is testPathLit for a literal that is also a plausible
// path or pattern: a sentence that mentions "tests/" is not a path.
func testPathValue(s string) bool {
	if len(s) > 200 || strings.ContainsAny(s, "\n") || strings.Count(s, " ") > 1 {
		return false
	}
	// Every alternative of testPathLit holds one of these: most strings
	// hold none, and the expression is the scan's costliest step.
	l := strings.ToLower(s)
	if mimeType.MatchString(l) {
		return false // application/test is a media type, not a path
	}
	if !strings.Contains(l, "test") && !strings.Contains(l, "spec") && !strings.Contains(l, "jest") && !strings.Contains(l, "vite") && !strings.Contains(l, "tox.ini") && !strings.Contains(l, "coveragerc") {
		return false
	}
	return testPathLit.MatchString(s)
}

var mimeType = regexp.MustCompile(`^(application|text|image|audio|video|multipart|message|font|model)/[\w.+-]+$`)

// isProc is procLit with its cheap precondition first.
func isProc(s string) bool { return strings.Contains(s, "/proc/") && procLit.MatchString(s) }

// procLit matches what /proc tells of a process: its command line, its
// environment, its executable, its parent.
var procLit = regexp.MustCompile(`/proc/(self|\*|%d|%s|\{[^}]*\}|\d+)?/?(cmdline|environ|exe|stat|status|comm)\b`)

// goTestFlag: a go test flag, with or without its dashes (cmd/go,
// "Testing flags": -test.v, -test.run, ...).
var goTestFlag = regexp.MustCompile(`^-{0,2}test\.(v|run|skip|count|timeout|short|bench\w*|failfast|parallel|cpu|list|paniconexit0|testlogfile|gocoverdir|coverprofile|cpuprofile|memprofile\w*|trace|shuffle|fullpath|outputdir|blockprofile\w*|mutexprofile\w*|fuzz\w*|coverpkg|covermode)\b|^-test\.`)

// shadowsRunner reports whether a code file would be found before the
// runner's own module or run before any test: Python's sitecustomize and
// usercustomize and .pth files (the site module imports and runs them at
// startup), a module named like the runner, a package installed under
// node_modules.
func shadowsRunner(p string) string {
	base := path.Base(p)
	switch {
	case base == "sitecustomize.py" || base == "usercustomize.py":
		return "runs at every interpreter start (site: " + base + ")"
	case strings.HasSuffix(base, ".pth"):
		return "runs at every interpreter start (site: a .pth file)"
	case strings.HasPrefix(p, "node_modules/") || strings.Contains(p, "/node_modules/"):
		return "edits an installed package (node_modules)"
	}
	if why := shadowsDep(p); why != "" {
		return why
	}
	if LangOf(p) == Python {
		mod := strings.TrimSuffix(base, path.Ext(base))
		if mod == "__init__" {
			mod = path.Base(path.Dir(p))
		}
		if mod == "pytest" || mod == "_pytest" || mod == "unittest" || mod == "pluggy" || mod == "doctest" {
			return "shadows the test runner's module " + mod
		}
	}
	return ""
}

// holdsRunnerName reports whether a file's strings (folded) name a test
// runner, its environment or its files: what an enumeration of the
// environment or of the loaded modules would be looking for.
func holdsRunnerName(t []tok, consts map[string]string) bool {
	for i := 0; i < len(t); i++ {
		if t[i].k != tStr {
			continue
		}
		v, _, end := foldStr(t, i, consts)
		i = max(i, end-1)
		l := strings.ToLower(v)
		if l == "test" || l == "tests" || runnerEnv(v) && len(v) > 1 || runnerPyModule(v) || runnerJSModule(v) && l != "test" && l != "assert" {
			return true
		}
		for _, w := range []string{"pytest", "unittest", "vitest", "jest", "mocha", "nose", "test_", "_test", ".test", "testing"} {
			if strings.Contains(l, w) {
				return true
			}
		}
	}
	return false
}

// runnerNameLit: a string that is a runner's or its machinery's name, as
// code compares it with what it found (`"_pytest" in repr(sys.stdout)`,
// `stack.includes("vitest")`).
func runnerNameLit(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "pytest", "_pytest", "py.test", "unittest", "vitest", "jest", "jest-circus", "@jest/globals", "mocha", "nose", "nose2",
		"__vitest_worker__", "tinypool", "testing.trunner", "trunner", "testing.(*t).run", "node:test", "pluggy":
		return true
	}
	return false
}

// comparers: calls that compare a string with another.
var comparers = map[string]bool{"startswith": true, "endswith": true, "includes": true, "indexOf": true, "match": true, "search": true,
	"test": true, "find": true, "count": true, "__contains__": true, "Contains": true, "HasPrefix": true, "HasSuffix": true,
	"startsWith": true, "endsWith": true, "lastIndexOf": true, "index": true, "rfind": true, "Index": true, "EqualFold": true}

// compared reports whether the literal from i to end is an operand of a
// comparison: `in`, `==`, `!=`, `===`, `!==`, or the argument of a
// comparing call.
func compared(t []tok, i, end int) bool {
	isCmp := func(k int) bool {
		if k < 0 || k >= len(t) {
			return false
		}
		switch {
		case t[k].k == tName && (t[k].s == "in" || t[k].s == "not"):
			return true
		case t[k].k == tOp && (t[k].s == "==" || t[k].s == "!=" || t[k].s == "===" || t[k].s == "!=="):
			return true
		}
		return false
	}
	if isCmp(i-1) || isCmp(end) {
		return true
	}
	return comparers[enclosingCall(t, i)]
}

// enclosingCall is the name of the call whose argument list holds t[i]
// ("join" for os.path.join(..., "tests")), or "".
func enclosingCall(t []tok, i int) string {
	d := 0
	for j := i - 1; j >= 0 && j > i-64; j-- {
		if t[j].k == tNL {
			return ""
		}
		if t[j].k != tOp {
			continue
		}
		switch t[j].s {
		case ")", "]", "}":
			d++
		case "[", "{":
			if d == 0 {
				return ""
			}
			d--
		case "(":
			if d == 0 {
				if j > 0 && t[j-1].k == tName {
					return t[j-1].s
				}
				return ""
			}
			d--
		}
	}
	return ""
}

// pathCalls build or list paths: a test directory's bare name in one of
// them is a path to the tests.
var pathCalls = map[string]bool{"join": true, "joinpath": true, "Path": true, "PurePath": true, "resolve": true, "Join": true,
	"readdirSync": true, "readdir": true, "listdir": true, "glob": true, "scandir": true, "walk": true, "iterdir": true,
	"opendir": true, "readFileSync": true, "readFile": true, "open": true, "ReadDir": true, "ReadFile": true, "Glob": true,
	"WalkDir": true, "Walk": true, "exists": true, "existsSync": true, "isdir": true, "URL": true}

// testDirLit: the bare name of a test directory, in a path.
func testDirLit(t []tok, i, end int, v string) bool {
	switch v {
	case "test", "tests", "__tests__", "spec", "specs":
	default:
		return false
	}
	if i > 0 && t[i-1].k == tOp && t[i-1].s == "/" || end < len(t) && t[end].k == tOp && t[end].s == "/" {
		return true
	}
	return pathCalls[enclosingCall(t, i)]
}

// shadowsDep: a path inside an installed or vendored dependency, or a
// jest manual mock (jest uses __mocks__/m.js in place of m, only under
// test: jest docs, "Manual Mocks").
func shadowsDep(p string) string {
	for _, d := range strings.Split(path.Dir(p), "/") {
		switch d {
		case "__mocks__":
			return "replaces a module under jest only (__mocks__)"
		case "vendor": // go mod vendor's copy of the dependencies
			if LangOf(p) == Go {
				return "edits a vendored package (vendor)"
			}
		case "site-packages", "dist-packages":
			if LangOf(p) == Python {
				return "edits an installed package (" + d + ")"
			}
		}
	}
	return ""
}

// testSourceLit matches what only a test's source holds: a test function's
// definition, an assertion, a matcher (a pattern searched for in a file
// read at run time, to take the expected value from it).
var testSourceLit = regexp.MustCompile(`\bdef test_|\bfunc Test[A-Z_]|\bassert(Equal|Equals|True|Raises)?\b.*==|\bassert [a-z_]+\(|\bexpect\(|\.(toBe|toEqual|toStrictEqual)\b|\bt\.(Fatal|Error)f?\(|\bself\.assert[A-Z]`)

// hiddenName: a name a decoded string must not turn out to be, as every
// class judges it: the modules and attributes that introspect, the
// runner's modules, globals, variables and files, the loader.
func hiddenName(v string) bool {
	if len(v) < 2 {
		return false
	}
	switch v {
	case "inspect", "traceback", "sys", "os", "posix", "nt", "builtins", "__builtins__", "__import__", "importlib", "gc", "__main__",
		"environ", "getenv", "argv", "orig_argv", "executable", "modules", "meta_path", "path_hooks", "settrace", "setprofile",
		"f_code", "f_globals", "f_locals", "co_filename", "stack",
		"process", "env", "argv0", "execArgv", "globalThis", "global", "require", "module", "constructor", "_load", "_cache",
		"captureStackTrace", "prepareStackTrace", "Function", "eval", "exec", "fs", "node:fs", "child_process", "node:process",
		"describe", "jest", "vi", "Testing", "Args", "Getenv", "LookupEnv", "Environ", "Caller", "Callers":
		return true
	}
	return runnerEnv(v) || runnerPyModule(v) || runnerJSModule(v) || runnerNameLit(v) || isProc(v) || testPathValue(v) ||
		pyFrameAttr[v] || goTestFlag.MatchString(v) || jsRunnerGlobals[v]
}

// hidden records a decoded name that is one the classes know.
func (f *findings) hidden(line int, v, dec string) {
	if dec != "" && hiddenName(v) {
		f.add(line, RuleHidden, "decodes "+quote(v)+" at run time ("+dec+")", v)
	}
}
