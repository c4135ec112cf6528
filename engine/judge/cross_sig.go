package judge

import (
	"regexp"
	"strings"
)

// Where a proposed test fails, per cross job: the location of the failing
// assertion each runner prints ("tests/test_calc.py:12: AssertionError",
// "calc_test.go:9:", "calc.test.js:4:13"). A candidate that fails another's
// reproduction where the checkout fails it still has the checkout's
// defect: the checkout's own behaviour agrees with the test. One that fails
// it somewhere else fails what the proposer asserted beyond the defect,
// which is its proposer's claim and no more (docs/report.md, "Cross-
// examination"): a reproduction only its proposer passes demotes nobody
// that way.

// failSigs reads a job's output a line at a time.
type failSigs struct {
	line    []byte
	current string            // the test whose failure is being read
	sigs    map[string]string // test (as the section names it) -> location
}

func newFailSigs() *failSigs { return &failSigs{sigs: map[string]string{}} }

var (
	sigPytestHead = regexp.MustCompile(`^_{3,} (\S.*?) _{3,}$`)
	sigPytestLoc  = regexp.MustCompile(`^(\S+\.py:\d+): (\w+)$`)
	sigUnitHead   = regexp.MustCompile(`^(FAIL|ERROR): (\w+) \(`)
	sigUnitLoc    = regexp.MustCompile(`^\s+File "([^"]+)", line (\d+), in (\w+)`)
	sigGoRun      = regexp.MustCompile(`^\s*(=== RUN|--- FAIL:)\s+(\S+)`)
	sigGoLoc      = regexp.MustCompile(`^\s+(\S+_test\.go:\d+):`)
	sigJestHead   = regexp.MustCompile(`^\s*● (.+)$`)
	sigJSLoc      = regexp.MustCompile(`(?:at .*\(|❯ |at )(\S+\.[cm]?[jt]sx?:\d+)(?::\d+)?\)?$`)
	sigVitestHead = regexp.MustCompile(`^\s*FAIL\s+(\S+ > .+)$`)
)

func (f *failSigs) Write(p []byte) {
	for len(p) > 0 {
		i := indexByte(p, '\n')
		if i < 0 {
			if len(f.line) < 4096 {
				f.line = append(f.line, p...)
			}
			return
		}
		if len(f.line) < 4096 {
			f.line = append(f.line, p[:i]...)
		}
		f.scan(stripANSI(strings.TrimRight(string(f.line), "\r")))
		f.line = f.line[:0]
		p = p[i+1:]
	}
}

func (f *failSigs) set(loc string) {
	if f.current != "" && f.sigs[f.current] == "" {
		f.sigs[f.current] = loc
	}
}

func (f *failSigs) scan(s string) {
	switch {
	case sigPytestHead.MatchString(s):
		f.current = sigPytestHead.FindStringSubmatch(s)[1]
	case sigUnitHead.MatchString(s):
		f.current = sigUnitHead.FindStringSubmatch(s)[2]
	case sigVitestHead.MatchString(s):
		f.current = sigVitestHead.FindStringSubmatch(s)[1]
	case sigJestHead.MatchString(s):
		f.current = sigJestHead.FindStringSubmatch(s)[1]
	case sigGoRun.MatchString(s):
		m := sigGoRun.FindStringSubmatch(s)
		f.current = m[2]
	case sigPytestLoc.MatchString(s):
		// pytest's last entry of a failure's traceback: where it failed.
		if m := sigPytestLoc.FindStringSubmatch(s); f.current != "" {
			f.sigs[f.current] = m[1]
		}
	case sigUnitLoc.MatchString(s):
		// unittest's traceback: the frame in the test function itself.
		if m := sigUnitLoc.FindStringSubmatch(s); f.current != "" && m[3] == f.current {
			f.sigs[f.current] = m[1] + ":" + m[2]
		}
	case sigGoLoc.MatchString(s):
		f.set(sigGoLoc.FindStringSubmatch(s)[1])
	case sigJSLoc.MatchString(s):
		f.set(sigJSLoc.FindStringSubmatch(s)[1])
	}
}

// of is where the job's output says test t failed, or "".
func (f *failSigs) of(t proposedTest) string {
	if f == nil {
		return ""
	}
	name := t.name
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	best := ""
	for k, v := range f.sigs {
		last := k
		for _, sep := range []string{" > ", " › ", ".", "/"} {
			if i := strings.LastIndex(last, sep); i >= 0 && sep != "/" {
				last = last[i+len(sep):]
			}
		}
		if last == name || k == t.name || strings.HasSuffix(k, " > "+t.name) || strings.HasSuffix(k, " › "+t.name) {
			if best != "" && best != v {
				return "" // two tests of that name failed in different places: unknown
			}
			best = v
		}
	}
	return best
}
