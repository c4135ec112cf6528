package judge

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Every hypothesis that did not pass gets Result.Reason: one line, the
// first error its output names, in the words a person would quote in a
// bug report ("test_calc.py::test_add: assert -1 == 5", "calc.go:12:5:
// undefined: Foo", "pytest: No module named pytest"). The text report,
// --json, MCP and the TUI show it; a row of statuses does not say why.
//
// The rules are tried in order, each over the whole output (error
// sections first, as the tail keeps them): a broken environment explains
// everything after it, a collection or compile error explains the failing
// tests that follow from it, then the first failing test with its
// assertion, then a panic or exception, then any "error:" line. The first
// rule that finds something wins; within a rule, the earliest line.

// ReasonMax bounds a reason line (the runner's message can be a page).
const ReasonMax = 240

type reasonRule func(lines []string) string

var reasonRules = []reasonRule{
	envReason,
	collectionReason,
	compileReason,
	testReason,
	panicReason,
	genericReason,
}

// FailureReason is the one-line reason for a result that did not pass,
// from its output (error sections and tail, ANSI stripped), or "" when
// the output names none. Exported for tests and front ends that read an
// older record without one.
func FailureReason(output string) string {
	lines := strings.Split(strings.TrimRight(output, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(stripANSI(l), "\r ")
	}
	for _, rule := range reasonRules {
		if s := rule(lines); s != "" {
			return clip(shortenPaths(s))
		}
	}
	return ""
}

// setReason fills r.Reason for a finished hypothesis that did not pass
// (called where runOne finalises the result; t is its output's tail and
// end the time the command ended). A timeout says what the command was
// doing: still printing (the machine may have been too busy) or silent
// since a line (a hang); the contention note is kept only for the first.
func setReason(r *result, lastOutput time.Time, timeout time.Duration, end time.Time) {
	switch r.Status {
	case StatusPassed, StatusCancelled, StatusQueued, StatusRunning:
		return
	}
	out := r.canary.without(r.OutputTail) // never the canary's failure (canary.go)
	var why string
	switch r.Status {
	case StatusTimedOut:
		why = timeoutReason(r, lastOutput, timeout, end)
	case StatusError:
		if r.Error != nil {
			why = *r.Error
		}
		if s := FailureReason(out); s != "" {
			why = s
		}
	default:
		why = FailureReason(out)
		if why == "" {
			why = lastLineReason(r, out)
		}
	}
	if why == "" {
		return
	}
	why = clip(why)
	r.Reason = &why
}

// timeoutReason: "timed out after 10s, silent for the last 9.7s after:
// waiting for lock" (a hang; the contention note of r.Error goes, since
// a busy machine slows output, it does not stop it), or "timed out after
// 10s while still printing: ..." (slow, or the machine was busy).
func timeoutReason(r *result, lastOutput time.Time, timeout time.Duration, end time.Time) string {
	last := lastLine(r.OutputTail)
	head := fmt.Sprintf("timed out after %s", timeout)
	if timeout <= 0 && r.Error != nil {
		head = *r.Error
	}
	if lastOutput.IsZero() {
		// Silent from the start: a build under load is too, so whatever
		// the contention note says stays.
		return head + " having printed nothing (stuck, or a build that had not finished)"
	}
	silent := end.Sub(lastOutput)
	if silent >= timeout/4 && silent >= 2*time.Second {
		stripContention(r, fmt.Sprintf("%s, silent for the last %s (a hang, not the machine's load)", head, silent.Round(100*time.Millisecond)))
		return fmt.Sprintf("%s, silent for the last %s after: %s", head, silent.Round(100*time.Millisecond), last)
	}
	return fmt.Sprintf("%s while still printing: %s", head, last)
}

// stripContention replaces a timeout's "may be contention rather than a
// hang" note (machine.go's contention) with msg when the output shows a
// hang: the note is wrong then, and sent people looking at the load.
func stripContention(r *result, msg string) {
	if r.Error != nil && strings.HasPrefix(*r.Error, "timed out") {
		rest := ""
		if i := strings.Index(*r.Error, "; "); i >= 0 {
			rest = (*r.Error)[i:] // warnings appended after the timeout
		}
		s := msg + rest
		r.Error = &s
	}
}

// lastLineReason: no rule matched; the exit status and the last line the
// command printed are still better than nothing.
func lastLineReason(r *result, out string) string {
	l := lastLine(out)
	code := ""
	if r.ExitCode != nil {
		code = fmt.Sprintf("exit %d", *r.ExitCode)
	}
	if r.Error != nil && *r.Error != "" {
		code = strings.TrimPrefix(code+", "+*r.Error, ", ")
	}
	switch {
	case l == "" && code == "":
		return ""
	case l == "":
		return code + " with no output"
	case code == "":
		return l
	}
	return code + "; last line: " + l
}

func lastLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(stripANSI(lines[i])); l != "" && l != "…" && !strings.HasPrefix(l, "[shadow: ") {
			return clip(l)
		}
	}
	return ""
}

var (
	// sh: 1: pytest: not found / bash: line 1: pytest: command not found /
	// zsh: command not found: pytest
	shNotFound  = regexp.MustCompile(`^(?:\S*/)?(?:ba|da|z|k)?sh: (?:\d+: |line \d+: )?(?:command not found: (\S+)|(\S+): (?:command )?not found)$`)
	execMissing = regexp.MustCompile(`exec: "([^"]+)": executable file not found`)
	// python3 -m pytest without it: /usr/bin/python3: No module named pytest
	noModuleRun = regexp.MustCompile(`^(?:\S*/)?(python[\d.]*|py): No module named (\S+)`)
	// the runner itself cannot start: a missing interpreter or binary
	noSuchCmd = regexp.MustCompile(`^(?:env|nice|timeout|xargs|npm|npx|sh): '?([^':]+)'?: No such file or directory$`)
)

// envReason: the command or its runner is missing; nothing the
// candidates did can be judged.
func envReason(lines []string) string {
	for _, l := range lines {
		switch {
		case shNotFound.MatchString(l):
			m := shNotFound.FindStringSubmatch(l)
			return "command not found: " + m[1] + m[2]
		case execMissing.MatchString(l):
			return "command not found: " + execMissing.FindStringSubmatch(l)[1]
		case noModuleRun.MatchString(l):
			m := noModuleRun.FindStringSubmatch(l)
			return m[2] + ": No module named " + m[2] + " (" + m[1] + " has no " + m[2] + " installed)"
		case noSuchCmd.MatchString(l):
			return "command not found: " + noSuchCmd.FindStringSubmatch(l)[1]
		}
	}
	return ""
}

var (
	pytestCollecting = regexp.MustCompile(`^_+ ERROR collecting (\S+) _+$`)
	pytestErrorLine  = regexp.MustCompile(`^E\s+(\S.*)$`)
	pytestErrorSum   = regexp.MustCompile(`^ERROR (\S+?)(?: - (.+))?$`)
	exceptionLine    = regexp.MustCompile(`^((?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit)(?::\s.*)?)$`)
	// vitest/jest: a suite that fails to load
	jsSuiteFail = regexp.MustCompile(`^\s*(?:FAIL|×)\s+(\S+\.(?:js|ts|jsx|tsx|mjs|cjs|mts|cts))\s*(?:\[.*\])?$`)
)

// collectionReason: the test files could not be collected (pytest's
// "ERROR collecting", a suite that fails to import): "collection error
// in test_calc.py: ImportError: cannot import name 'x' from 'calc'".
func collectionReason(lines []string) string {
	for i, l := range lines {
		if m := pytestCollecting.FindStringSubmatch(l); m != nil {
			for _, n := range lines[i+1:] {
				if e := pytestErrorLine.FindStringSubmatch(n); e != nil {
					return "collection error in " + m[1] + ": " + e[1]
				}
				if pytestCollecting.MatchString(n) || strings.HasPrefix(n, "=====") {
					break
				}
			}
			for _, n := range lines[i+1:] {
				if e := exceptionLine.FindStringSubmatch(n); e != nil {
					return "collection error in " + m[1] + ": " + e[1]
				}
			}
			return "collection error in " + m[1]
		}
	}
	// pytest's short summary, when the section itself was cut.
	for _, l := range lines {
		if m := pytestErrorSum.FindStringSubmatch(l); m != nil && strings.Contains(m[1], ".py") && !strings.Contains(m[1], "::") {
			if m[2] != "" {
				return "collection error in " + m[1] + ": " + m[2]
			}
			return "collection error in " + m[1]
		}
	}
	return ""
}

var (
	// go build / vet, gcc, clang, javac, swiftc: file:line[:col]: [error:] message
	goCompile  = regexp.MustCompile(`^(\.?/?[\w./@+-]+\.go:\d+:\d+: .+)$`)
	ccCompile  = regexp.MustCompile(`^([\w./@+-]+\.\w+:\d+(?::\d+)?: (?:fatal )?error: .+)$`)
	tscCompile = regexp.MustCompile(`^([\w./@+-]+\.[cm]?tsx?)(?:\((\d+),(\d+)\)|:(\d+):(\d+)) ?[:-] ?(error TS\d+: .+)$`)
	rustError  = regexp.MustCompile(`^(error(?:\[E\d+\])?: .+)$`)
	rustWhere  = regexp.MustCompile(`^\s+--> (\S+)$`)
	pySyntax   = regexp.MustCompile(`^((?:Syntax|Indentation|Tab)Error: .+)$`)
	pyFileLine = regexp.MustCompile(`^\s*File "([^"]+)", line (\d+)`)
)

// compileReason: the code does not build.
func compileReason(lines []string) string {
	for i, l := range lines {
		switch {
		case goCompile.MatchString(l): // t.Errorf lines are indented and have no column
			return strings.TrimPrefix(l, "./")
		case ccCompile.MatchString(l):
			return l
		case tscCompile.MatchString(l):
			m := tscCompile.FindStringSubmatch(l)
			ln, col := m[2]+m[4], m[3]+m[5]
			return fmt.Sprintf("%s:%s:%s: %s", m[1], ln, col, m[6])
		case rustError.MatchString(l) && i+1 < len(lines) && rustWhere.MatchString(lines[i+1]):
			return l + " (" + rustWhere.FindStringSubmatch(lines[i+1])[1] + ")"
		case pySyntax.MatchString(l):
			for j := i - 1; j >= 0 && j >= i-5; j-- {
				if m := pyFileLine.FindStringSubmatch(lines[j]); m != nil {
					return l + " (" + m[1] + ":" + m[2] + ")"
				}
			}
			return l
		}
	}
	return ""
}

var (
	pytestFailed = regexp.MustCompile(`^FAILED (\S+?)(?: - (.+))?$`)
	goFail       = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)
	goDetail     = regexp.MustCompile(`^\s+(\S+_test\.go:\d+: .+)$`)
	goPanic      = regexp.MustCompile(`^panic: (.+)$`)
	jestBullet   = regexp.MustCompile(`^\s*● (.+ › .+|\S.*)$`)
	vitestFail   = regexp.MustCompile(`^\s*FAIL\s+(\S+\.(?:js|ts|jsx|tsx|mjs|cjs|mts|cts)) > (.+)$`)
	jsDetail     = regexp.MustCompile(`^\s*((?:AssertionError|Error|TypeError|ReferenceError|RangeError|SyntaxError)(?:\s\[\w+\])?: .+|expect\(.+\)\..+|Expected.*: .+)$`)
	rustPanicNew = regexp.MustCompile(`^thread '([^']+)'(?: \(\d+\))? panicked at (\S+?):?$`)
	rustPanicOld = regexp.MustCompile(`^thread '([^']+)'(?: \(\d+\))? panicked at '(.+)', (\S+)$`)
	unittestFail = regexp.MustCompile(`^(FAIL|ERROR): (\w+) \(([\w.]+)\)`)
	notOK        = regexp.MustCompile(`^\s*not ok \d+ (?:- )?(.+)$`)
	tapError     = regexp.MustCompile(`^\s+error: (.+)$`)
)

// testReason: the first failing test and its assertion.
func testReason(lines []string) string {
	detail := func(from int, re *regexp.Regexp, stop func(string) bool) string {
		for _, n := range lines[from:min(from+40, len(lines))] {
			if stop != nil && stop(n) {
				break
			}
			if m := re.FindStringSubmatch(n); m != nil {
				return strings.TrimSpace(m[1])
			}
		}
		return ""
	}
	for i, l := range lines {
		if m := pytestFailed.FindStringSubmatch(l); m != nil {
			if m[2] != "" {
				return m[1] + ": " + m[2]
			}
			// No message on the summary line (pytest -rf without -v):
			// the E line of the failure section.
			if d := detail(0, pytestErrorLine, nil); d != "" {
				return m[1] + ": " + d
			}
			return m[1] + " failed"
		}
		if m := goFail.FindStringSubmatch(l); m != nil {
			// -v prints a test's lines before its --- FAIL line: a
			// "=== RUN" after it starts another test's.
			stop := func(n string) bool {
				return goFail.MatchString(n) || strings.HasPrefix(n, "FAIL") || strings.HasPrefix(strings.TrimSpace(n), "=== ")
			}
			if d := detail(i+1, goDetail, stop); d != "" {
				return m[1] + ": " + d
			}
			if d := detail(i+1, goPanic, stop); d != "" {
				return m[1] + ": panic: " + d
			}
			// Output printed before the --- FAIL line (t.Log of a
			// subtest, -v): look back a few lines.
			for j := i - 1; j >= 0 && j >= i-5; j-- {
				if d := goDetail.FindStringSubmatch(lines[j]); d != nil {
					return m[1] + ": " + strings.TrimSpace(d[1])
				}
			}
			return m[1] + " failed"
		}
		if m := vitestFail.FindStringSubmatch(l); m != nil {
			if d := detail(i+1, jsDetail, nil); d != "" {
				return m[1] + " > " + m[2] + ": " + d
			}
			return m[1] + " > " + m[2] + " failed"
		}
		if m := jestBullet.FindStringSubmatch(l); m != nil && !strings.HasPrefix(strings.TrimSpace(m[1]), "Console") {
			if d := detail(i+1, jsDetail, func(n string) bool { return jestBullet.MatchString(n) }); d != "" {
				return m[1] + ": " + d
			}
			return m[1] + " failed"
		}
		if m := rustPanicNew.FindStringSubmatch(l); m != nil && i+1 < len(lines) {
			return m[1] + " panicked at " + m[2] + ": " + strings.TrimSpace(lines[i+1])
		}
		if m := rustPanicOld.FindStringSubmatch(l); m != nil {
			return m[1] + " panicked at " + m[3] + ": " + m[2]
		}
		if m := unittestFail.FindStringSubmatch(l); m != nil {
			for _, n := range lines[i+1 : min(i+60, len(lines))] {
				if e := exceptionLine.FindStringSubmatch(n); e != nil {
					return m[2] + " (" + m[3] + "): " + e[1]
				}
			}
			return m[2] + " (" + m[3] + ") failed"
		}
		if m := notOK.FindStringSubmatch(l); m != nil {
			// TAP (node --test, prove): the YAML block's error.
			for j, n := range lines[i+1 : min(i+30, len(lines))] {
				if notOK.MatchString(n) || strings.TrimSpace(n) == "..." {
					break
				}
				if e := tapError.FindStringSubmatch(n); e != nil {
					msg := strings.Trim(e[1], `'"`)
					if msg == "|-" || msg == "|" || msg == ">-" {
						msg = ""
						for _, k := range lines[i+2+j : min(i+8+j, len(lines))] {
							if k = strings.TrimSpace(k); k != "" {
								msg = k
								break
							}
						}
					}
					if msg != "" {
						return m[1] + ": " + msg
					}
				}
			}
			return "not ok: " + m[1]
		}
	}
	return ""
}

var goFrame = regexp.MustCompile(`^\s+(\S+\.go:\d+)`)

// panicReason: a crash outside any test (a Go panic in main, a Python
// traceback's exception, an uncaught JS error).
func panicReason(lines []string) string {
	for i, l := range lines {
		if m := goPanic.FindStringSubmatch(l); m != nil {
			for _, n := range lines[i+1 : min(i+12, len(lines))] {
				if f := goFrame.FindStringSubmatch(n); f != nil && !strings.Contains(n, "/runtime/") && !strings.Contains(n, "/testing/") {
					return "panic: " + m[1] + " (" + f[1] + ")"
				}
			}
			return "panic: " + m[1]
		}
		if l == "Traceback (most recent call last):" {
			for _, n := range lines[i+1:] {
				if e := exceptionLine.FindStringSubmatch(n); e != nil {
					return e[1]
				}
			}
		}
	}
	return ""
}

var generic = regexp.MustCompile(`^(?:\S+: )?((?:fatal|error|Error|ERROR|FATAL)(?:\[\w+\])?: .+|[A-Z]\w*(?:Error|Exception): .+)$`)

// genericReason: any line that says error.
func genericReason(lines []string) string {
	for _, l := range lines {
		if m := generic.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			return m[1]
		}
	}
	return ""
}

// absPath: an absolute path to a file ("/home/u/proj/calc.py"): a reason
// names the file (relative paths stay as the runner printed them, from
// the workspace); the full path is in the log.
var absPath = regexp.MustCompile(`(?:^|[\s('"])/(?:[\w.@+-]+/)+([\w.@+-]+\.\w+)`)

func shortenPaths(s string) string {
	return absPath.ReplaceAllStringFunc(s, func(m string) string {
		lead := ""
		if c := m[0]; c == ' ' || c == '(' || c == '\'' || c == '"' || c == '\t' {
			lead, m = m[:1], m[1:]
		}
		return lead + m[strings.LastIndexByte(m, '/')+1:]
	})
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= ReasonMax {
		return s
	}
	cut := ReasonMax
	for cut > 0 && s[cut]&0xc0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}
