package parse

import (
	"regexp"
	"strings"
)

// ctest reads CTest: "1/4 Test #1: name ....   Passed    0.00 sec" per test
// (also inside -V output, where test output lines are prefixed "N: "), the
// summary "75% tests passed, 1 tests failed out of 4", and the lists
// "The following tests did not run:" / "The following tests FAILED:".
// Skipped, "Not Run" and disabled tests count as skipped; every other status
// (Failed, Timeout, Exception, ...) as failed. The summary's total wins;
// skipped tests are inside ctest's "passed" percentage, so passed is the total
// less failed and skipped. Names are the test names.
type ctest struct {
	t       tally
	closed  bool // a summary line closed the section; the lists may follow
	list    int  // inside "did not run" (1) or "FAILED" (2) list
	skipped int  // per-test skips of the open section
}

func newCTest() *ctest { return &ctest{} }

func (c *ctest) framework() string { return "ctest" }
func (c *ctest) recognised() bool  { return c.t.seen }
func (c *ctest) live() counts      { return c.t.live() }
func (c *ctest) final() *Summary   { return c.t.summary("ctest") }

var (
	ctestLine    = regexp.MustCompile(`\d+/\d+ Test +#\d+: (\S+) \.*(?: |\*\*\*)+(.*?)\s+[\d.]+ sec`)
	ctestSummary = regexp.MustCompile(`^\d+% tests passed, (\d+) tests? failed out of (\d+)`)
	ctestList    = regexp.MustCompile(`^\s*\d+ - (\S+) \((.*)\)$`)
)

func (c *ctest) line(s string) {
	if strings.Contains(s, " Test ") && strings.Contains(s, " sec") {
		if m := ctestLine.FindStringSubmatch(s); m != nil {
			c.closed, c.list = false, 0
			st := m[2]
			switch {
			case st == "Passed":
				c.t.outcome(m[1], pass, true)
			case st == "Skipped" || strings.HasPrefix(st, "Not Run") || strings.Contains(st, "Disabled"):
				c.t.outcome(m[1], skip, true)
			default:
				c.t.outcome(m[1], fail, true)
			}
			return
		}
	}
	if !strings.Contains(s, "% tests passed") {
		// not the summary
	} else if m := ctestSummary.FindStringSubmatch(s); m != nil {
		failed, total := atoi(m[1]), atoi(m[2])
		sk := min(c.t.cur.skipped, max(total-failed, 0))
		c.t.closeWith(counts{max(total-failed-sk, 0), failed, sk})
		c.closed = true
		return
	}
	if s == "No tests were found!!!" {
		c.t.closeWith(counts{})
		return
	}
	switch {
	case !c.closed:
		return
	case strings.HasPrefix(s, "The following tests did not run:"):
		c.list, c.skipped = 1, 0
		return
	case strings.HasPrefix(s, "The following tests FAILED:"):
		c.list = 2
		return
	case c.list == 0:
		return
	}
	if m := ctestList.FindStringSubmatch(s); m == nil {
		c.list = 0
	} else {
		if c.list == 1 {
			// Without per-test lines (ctest -Q) skips are only known here:
			// move them from passed, once per entry beyond those already counted.
			c.skipped++
			if c.skipped > c.t.done.skipped && c.t.done.passed > 0 {
				c.t.done.passed--
				c.t.done.skipped++
			}
		} else {
			c.t.fail.add(m[1])
		}
	}
}
