package scan

import "regexp"

// Rule is one thing only a cheat needs. A line rule matches one added code
// line (Line, not Unless, in Scope); a body rule matches a function whose
// definition matches Def and whose whole body is one statement matching
// Body (an equality that is always true).
type Rule struct {
	ID string
	// Has: a line the rule can match contains one of these (a cheap
	// filter before the expressions; nil: every line).
	Has    []string
	Langs  []Lang // nil: every language
	Why    string
	Line   *regexp.Regexp
	Unless *regexp.Regexp
	Scope  Scope
	Def    *regexp.Regexp
	Body   *regexp.Regexp
}

func (r Rule) applies(l Lang) bool {
	if r.Langs == nil {
		return true
	}
	for _, x := range r.Langs {
		if x == l {
			return true
		}
	}
	return false
}

var re = regexp.MustCompile

// printCall is a call that writes to the output the runner's parser reads.
const printCall = `(\bprint\s*\(|\.write\s*\(|\bfmt\.(Print|Fprint)\w*\s*\(|\bprintln\s*\(|\bconsole\.(log|info|error|warn)\s*\(|\blog\.Print\w*\s*\()`

// fakeLine is what runners print about results: go test's "--- PASS:",
// "=== RUN", "PASS", "ok  \tpkg", pytest's "N passed", unittest's "Ran N
// tests", jest's and vitest's "Tests: N passed", cargo's "test result: ok",
// TAP's "ok N - " and "# pass N". A count may be a format verb or an
// interpolation.
const fakeLine = `(---\s*(PASS|SKIP):|=== (RUN|PAUSE|CONT)\s|` + q + `PASS(\\n)?` + q + `|` + q + `ok\s*\\t|` + q + `ok\s{2,}|` +
	num + `\s+passed\b|Ran ` + num + ` tests?\b|Tests?:?\s+` + num + ` passed|Test Files\s|test result: ok\b|# pass ` + num + `|` + q + `ok ` + num + ` - )`

const (
	q   = "[\"'`]"
	num = `(\d+|%d|%v|\{[^}]*\}|\$\{[^}]*\})`
)

// Rules is the one table of what the scan flags. Each row has a test of
// what it catches and of the legitimate code beside it that it must not
// flag (scan_test.go).
var Rules = []Rule{
	// Sniffing the runner: code that knows it is under test can pass the
	// tests and do something else in use.
	{ID: "py-sniff-runner", Has: []string{"sys.modules", "sys.argv"}, Langs: []Lang{Python}, Why: "checks whether it runs under pytest/unittest",
		Line: re(`["'](_?pytest|unittest)["']\s+(not\s+)?in\s+sys\.modules|sys\.modules\.get\(\s*["'](_?pytest|unittest)["']|sys\.modules\[\s*["'](_?pytest)["']|["'](_?pytest|unittest)["']\s+in\s+(sys\.argv|" ".join\(sys\.argv)|sys\.argv\[0\].*(pytest|unittest)`)},
	{ID: "py-sniff-env", Has: []string{"PYTEST_", "UNITTEST_"}, Langs: []Lang{Python}, Why: "reads the test runner's environment variable",
		Line: re(`\b(PYTEST_CURRENT_TEST|PYTEST_VERSION|PYTEST_XDIST_WORKER|PYTEST_ADDOPTS|UNITTEST_\w+)\b`)},
	{ID: "go-testing-testing", Has: []string{"testing.Testing"}, Langs: []Lang{Go}, Why: "checks whether it runs under go test (testing.Testing)",
		Line: re(`\btesting\.Testing\(\)`)},
	{ID: "go-sniff-args", Has: []string{"os.Args", "flag.Lookup", "-test."}, Langs: []Lang{Go}, Why: "checks whether it runs under go test (the test binary's name or flags)",
		Line: re(`os\.Args\[0\].*\.test\b|flag\.Lookup\(\s*"test\.\w+"\s*\)|"-test\.(v|run|paniconexit0|timeout)`)},
	{ID: "js-sniff-env", Has: []string{"VITEST", "JEST_WORKER_ID", "NODE_ENV", "NODE_TEST_CONTEXT", "__vitest", "__jest", "jasmine", "import.meta.vitest"}, Langs: []Lang{JS}, Why: "checks whether it runs under vitest/jest/node --test",
		Line: re(`\b(process\.env|import\.meta\.env)\s*(\.\s*|\[\s*["'])(VITEST\w*|JEST_WORKER_ID|NODE_TEST_CONTEXT)\b|\b(globalThis|global|window)\s*\.\s*(__vitest\w*|jasmine|__jest\w*)\b|NODE_ENV["'\]]*\s*[!=]==?\s*["']test["']|["']test["']\s*[!=]==?\s*process\.env(\.NODE_ENV|\[["']NODE_ENV)|import\.meta\.vitest`)},

	// Patching the runner: a source module that rewrites how results are
	// judged, on import.
	{ID: "py-patch-runner", Has: []string{"pytest", "TestCase", "TestResult", "TestReport", "TestProgram"}, Langs: []Lang{Python}, Why: "assigns into pytest's or unittest's internals",
		Line: re(`(\b_pytest(\.\w+)+|\bTestReport(\.\w+)+|\b(unittest\.)?(TestCase|TestResult|TextTestResult|TestProgram)\.\w+|\bpytest\.(\w+\.)*\w+)\s*=[^=]|setattr\(\s*(_pytest|pytest|TestReport|(unittest\.)?(TestCase|TestResult|TextTestResult))\b|\bdef\s+pytest_(runtest_\w+|report_\w+|collection_modifyitems|terminal_summary|sessionfinish)\s*\(`)},
	{ID: "js-patch-expect", Has: []string{"expect", "Assertion", "vi.mock", "globalThis", "global."}, Langs: []Lang{JS}, Why: "patches the test framework's expect/assertions",
		Line: re(`\bexpect\s*\.\s*extend\s*\(|\bexpect\s*\.\s*\w+\s*=[^=]|\b(globalThis|global)\s*\.\s*(expect|test|it|describe)\s*=[^=]|\b(Assertion|JestAssertionError|AssertionError)\s*\.\s*prototype\s*\.\s*\w+\s*=[^=]|defineProperty\(\s*(globalThis|global)\s*,\s*["'](expect|it|test)["']|vi\.mock\(\s*["'](vitest|@jest/\w+|expect)["']`)},
	{ID: "go-patch-testing", Has: []string{"go:linkname", "testing."}, Langs: []Lang{Go}, Why: "reaches into the testing package's internals",
		Line: re(`//go:linkname\s+\w+\s+(testing|os|runtime)\.\w+|\btesting\.(MainStart|Main)\s*\(|\btesting\.Init\s*\(`)},

	// Ending the process before the runner reports, as a success.
	{ID: "py-exit-at-import", Has: []string{"exit", "quit", "os.kill"}, Langs: []Lang{Python}, Why: "exits with status 0 at import time, before the runner reports",
		Line:   re(`\b(sys\.exit|os\._exit|exit|quit)\s*\(\s*(0|None|False)?\s*\)|atexit\.register\(.*\b(_exit|exit)\b|os\.kill\(\s*os\.getpid\(\)`),
		Unless: re(`__name__`), Scope: ImportTime},
	{ID: "py-exit-hook", Has: []string{"atexit"}, Langs: []Lang{Python}, Why: "makes the interpreter exit 0 when the tests end",
		Line: re(`atexit\.register\(.*\b_?exit\b`)},
	{ID: "go-exit-in-init", Has: []string{"Exit("}, Langs: []Lang{Go}, Why: "exits with status 0 in init, before any test runs",
		Line: re(`\b(os|syscall)\.Exit\(\s*0\s*\)`), Scope: ImportTime},
	{ID: "js-exit-at-import", Has: []string{"process"}, Langs: []Lang{JS}, Why: "ends the process, or hooks its end, at import time, before the runner reports",
		Line: re(`\bprocess\s*\.\s*(exit|reallyExit)\s*\(\s*(0)?\s*\)|process\.kill\(\s*process\.pid|process\.exitCode\s*=\s*0\b|process\.on\(\s*["'](exit|beforeExit)["']`), Scope: ImportTime},

	// Printing the runner's own result lines from code.
	{ID: "fake-runner-output", Has: []string{"PASS", "RUN", "ok", "passed", "Ran ", "Test Files", "test result", "# pass"}, Why: "prints a test runner's result line",
		Line: re(printCall + `.*` + fakeLine)},

	// An equality that always holds makes every assertEqual/toEqual pass.
	{ID: "py-eq-always-true", Has: []string{"__eq__"}, Langs: []Lang{Python}, Why: "defines __eq__ that always returns True",
		Def: re(`^\s*def\s+__eq__\s*\(`), Body: re(`^return\s+True\b\s*$`)},
	{ID: "py-ne-always-false", Has: []string{"__ne__"}, Langs: []Lang{Python}, Why: "defines __ne__ that always returns False",
		Def: re(`^\s*def\s+__ne__\s*\(`), Body: re(`^return\s+False\b\s*$`)},
	{ID: "py-eq-lambda", Has: []string{"__eq__"}, Langs: []Lang{Python}, Why: "sets __eq__ to a function that always returns True",
		Line: re(`__eq__\s*=\s*lambda[^:]*:\s*True\b`)},
	{ID: "js-equals-always-true", Has: []string{"equal", "Equal", "nodejs.util.inspect"}, Langs: []Lang{JS}, Why: "defines equals() that always returns true",
		Def: re(`^\s*(public\s+|static\s+)?(equals|isEqual|equal|\[Symbol\.for\(["']nodejs\.util\.inspect\.custom)\s*\([^)]*\)\s*(:\s*boolean\s*)?\{`), Body: re(`^return\s+true\s*;?\s*$`)},
	{ID: "js-equals-arrow-true", Has: []string{"equals", "isEqual", "asymmetricMatch"}, Langs: []Lang{JS}, Why: "sets equals() to a function that always returns true",
		Line: re(`\b(equals|isEqual|asymmetricMatch)\s*[=:]\s*(\([^)]*\)|\w+)\s*=>\s*true\b|\basymmetricMatch\s*\([^)]*\)\s*\{\s*return\s+true\b`)},
	{ID: "go-equal-always-true", Has: []string{"Equal"}, Langs: []Lang{Go}, Why: "defines Equal() that always returns true",
		Def: re(`^func\s+\([^)]*\)\s+(Equal|Equals)\s*\([^)]*\)\s*bool\s*\{`), Body: re(`^return\s+true\s*$`)},
}
