package parse

import (
	"regexp"
	"strings"
)

// pytest reads pytest's output in its -q, -v and default forms.
//
// Counting (the summary line "2 failed, 2 passed, 1 skipped, 1 xfailed,
// 1 xpassed, 1 error in 0.03s" wins over per-test lines):
//   - errors (setup/teardown/collection) count as failed: the run is broken;
//   - xfailed counts as skipped: an expected failure neither passes nor fails
//     anything (pytest's JUnit XML reports it as skipped too);
//   - xpassed counts as passed: non-strict XPASS is not a failure for pytest
//     (a strict one is reported by pytest as "failed" and counts so);
//   - "no tests ran" is a recognised run with zero counts.
//
// Names are pytest node ids ("tests/test_calc.py::test_eq[2-3]"), from -v
// result lines and from the "short test summary info" section (FAILED/ERROR
// lines are there by default, PASSED ones with -rA). A collection error is
// named by its file ("tests/test_bad.py").
//
// Live counts grow with -v result lines and with the progress characters of
// the default and -q forms (".FsxXE" with a "[ 50%]" column).
type pytest struct {
	t     tally
	short bool // inside "short test summary info"
	// deselected is what the summary lines said were deselected (-k, -m,
	// --deselect): tests the suite has that this run left out.
	deselected int
}

func newPytest() *pytest { return &pytest{} }

func (p *pytest) framework() string { return "pytest" }
func (p *pytest) recognised() bool  { return p.t.seen }
func (p *pytest) live() counts      { return p.t.live() }
func (p *pytest) final() *Summary {
	s := p.t.summary("pytest")
	if s != nil {
		s.Deselected = p.deselected
	}
	return s
}

var (
	pytestSummary  = regexp.MustCompile(`^=*\s*((?:\d+ \w+(?:, )?)+|no tests ran) in [\d.]+s(?: \([\d:.]+\))?\s*=*$`)
	pytestVerbose  = regexp.MustCompile(`^([^\s:]+::.*?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)(?:\s.*)?$`)
	pytestXdist    = regexp.MustCompile(`^\[gw\d+\] \[\s*\d+%\] (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S.*?::\S*)`)
	pytestProgress = regexp.MustCompile(`^(?:\S+\.py )?([.FEsxX]+)\s*\[\s*\d+%\]$|^\S+\.py ([.FEsxX]+)$`)
	pytestShort    = regexp.MustCompile(`^(FAILED|ERROR|PASSED) (\S.*)$`)
)

var pytestOutcome = map[string]int{
	"PASSED": pass, "XPASS": pass, "FAILED": fail, "ERROR": fail, "SKIPPED": skip, "XFAIL": skip,
}

func (p *pytest) line(s string) {
	if strings.HasPrefix(s, "=") {
		switch {
		case strings.Contains(s, " test session starts "):
			// A new session (tox runs one per env): the previous one, if it
			// ended without a summary, keeps its live counts.
			p.t.closeLive()
			p.short = false
			return
		case strings.Contains(s, " short test summary info "):
			p.short = true
			return
		}
	}
	if strings.Contains(s, " in ") && (strings.HasSuffix(s, "=") || strings.HasSuffix(s, "s") || strings.HasSuffix(s, ")")) {
		if m := pytestSummary.FindStringSubmatch(s); m != nil && p.summary(m[1]) {
			p.short = false
			return
		}
	}
	if p.short {
		if m := pytestShort.FindStringSubmatch(s); m != nil {
			p.t.outcome(pytestName(m[2]), pytestOutcome[m[1]], false)
			return
		}
		if strings.HasPrefix(s, "=") || s == "" {
			p.short = false
		}
		return
	}
	// cargo -q prints "tests::sub_works --- FAILED": a Rust path, not a
	// node id.
	if strings.Contains(s, "::") && !strings.Contains(s, " --- ") {
		if m := pytestVerbose.FindStringSubmatch(s); m != nil {
			p.t.outcome(m[1], pytestOutcome[m[2]], true)
			return
		}
		if m := pytestXdist.FindStringSubmatch(s); m != nil {
			p.t.outcome(m[2], pytestOutcome[m[1]], true)
			return
		}
	}
	if !strings.HasSuffix(s, "%]") && !strings.Contains(s, ".py ") {
		return
	}
	if m := pytestProgress.FindStringSubmatch(s); m != nil {
		chars := m[1] + m[2]
		for _, c := range chars {
			switch c {
			case '.', 'X':
				p.t.cur.passed++
			case 'F', 'E':
				p.t.cur.failed++
			case 's', 'x':
				p.t.cur.skipped++
			}
		}
		p.t.seen = true
	}
}

// summary parses "2 failed, 2 passed, 1 error" (the part before " in 0.03s").
// It reports false when a word is not one of pytest's, so another tool's
// "N things in 3s" line is not taken for pytest's.
func (p *pytest) summary(s string) bool {
	var c struct {
		counts
		deselected int
	}
	if s != "no tests ran" {
		for _, part := range strings.Split(s, ", ") {
			n, w, ok := numWord(part)
			if !ok {
				return false
			}
			switch w {
			case "passed", "xpassed":
				c.passed += n
			case "failed", "error", "errors":
				c.failed += n
			case "skipped", "xfailed":
				c.skipped += n
			case "deselected":
				c.deselected += n
			case "warning", "warnings", "rerun", "reruns":
			default:
				return false
			}
		}
	}
	p.t.closeWith(c.counts)
	p.deselected += c.deselected
	return true
}

// pytestName cuts a short-summary entry to its node id: a parametrised id may
// contain " - " inside its brackets, so the cut happens after the brackets.
func pytestName(s string) string {
	start := 0
	if i := strings.Index(s, "::"); i >= 0 {
		if j := strings.IndexAny(s[i:], " ["); j >= 0 && s[i+j] == '[' {
			depth := 0
			for k := i + j; k < len(s); k++ {
				if s[k] == '[' {
					depth++
				} else if s[k] == ']' {
					depth--
					if depth == 0 {
						start = k
						break
					}
				}
			}
		}
	}
	if i := strings.Index(s[start:], " - "); i >= 0 {
		return s[:start+i]
	}
	return strings.TrimSpace(s)
}
