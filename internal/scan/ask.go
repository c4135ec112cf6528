package scan

import (
	"path"
	"strings"
)

// The introspection classes (docs/report.md, "Suspicious"): code that can
// tell it is being tested. Each is judged by what the code asks, resolved
// through the language's names (an import alias, a getattr with a built name, a
// destructured require), not by how a line is spelled.
const (
	// RuleStack asks for the call stack: who called it, from which file.
	RuleStack = "introspect-stack"
	// RuleArgv asks which program runs it: argv, the executable, the
	// parent process, a go test flag.
	RuleArgv = "introspect-argv"
	// RuleEnv reads a variable only a runner sets, or lists them all.
	RuleEnv = "introspect-env"
	// RuleLoaded asks whether the runner is loaded, or lists what is.
	RuleLoaded = "introspect-loaded"
	// RuleReadsTests reads the files the runner treats as tests or config.
	RuleReadsTests = "reads-test-files"
	// RulePatch patches or wraps the runner, the assertion library, the
	// builtins or the import system.
	RulePatch = "patches-runner"
	// RuleUsesRunner calls into the runner from code under test.
	RuleUsesRunner = "uses-runner"
	// RuleEquality is an equality that cannot fail.
	RuleEquality = "equality-cannot-fail"
	// RuleStartup is a file the interpreter or runner runs before any
	// test (sitecustomize, a .pth file, a module named like the runner).
	RuleStartup = "runs-before-tests"
	// RuleHidden decodes at run time a name the other classes know
	// (base64, hex, rot13, character codes, a reversal): spelling it out
	// would be enough for any other purpose.
	RuleHidden = "hides-what-it-asks"
	// RuleUnreadable: the analysis could not get through the file.
	RuleUnreadable = "unscannable"
)

// Classes lists the introspection rules, each with its cheats and the
// legitimate code it must leave alone in ask_test.go.
var Classes = []string{RuleStack, RuleArgv, RuleEnv, RuleLoaded, RuleReadsTests, RulePatch, RuleUsesRunner, RuleEquality, RuleStartup, RuleHidden}

// testPanic lets a test make the analysis fail.
var testPanic func(src string)

// finding is one thing the code asks.
type finding struct {
	line int
	rule string
	why  string // what it asked, for the report
	key  string // with rule: what "the checkout already did the same" compares
}

type findings struct {
	list []finding
	seen map[string]bool
}

func (f *findings) add(line int, rule, why, key string) {
	if f.seen == nil {
		f.seen = map[string]bool{}
	}
	k := rule + "\x00" + key + "\x00" + itoa(line)
	if f.seen[k] {
		return
	}
	f.seen[k] = true
	f.list = append(f.list, finding{line: line, rule: rule, why: why, key: key})
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// analyze returns what a file's code asks, whatever its lines' authors.
// A file the analysis cannot get through (a bug FuzzScan has not found) is
// itself a finding on its first line: a candidate must not escape the scan
// by writing what crashes it, and the judge's run must go on.
func analyze(lang Lang, p string, src string, lines []string) (out []finding) {
	defer func() {
		if r := recover(); r != nil {
			out = []finding{{line: 1, rule: RuleUnreadable, why: "could not be scanned for introspection", key: "unreadable"}}
		}
	}()
	if testPanic != nil {
		testPanic(src)
	}
	var fs findings
	if why := shadowsRunner(p); why != "" {
		fs.add(1, RuleStartup, why, path.Base(p))
	}
	switch lang {
	case Python:
		pyAnalyze(&fs, p, src, lines)
	case JS:
		jsAnalyze(&fs, p, src, lines)
	case Go:
		goAnalyze(&fs, p, src)
	}
	return fs.list
}

// entryPoint reports whether a file is a program's entry point rather than
// a module a test imports: a #! script, Python's __main__.py, a file under
// bin/ or cmd/. What a program asks of its own command line is its job.
func entryPoint(p string, lines []string) bool {
	if len(lines) > 0 && strings.HasPrefix(lines[0], "#!") {
		return true
	}
	base := path.Base(p)
	if base == "__main__.py" {
		return true
	}
	for _, d := range strings.Split(path.Dir(p), "/") {
		if d == "bin" || d == "cmd" || d == "scripts" {
			return true
		}
	}
	return false
}
