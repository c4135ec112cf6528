package parse

import (
	"regexp"
	"strings"
)

// meson reads `meson test`: "1/4 name  OK  0.01s" per test and the summary
// block "Ok:", "Expected Fail:", "Fail:", "Unexpected Pass:", "Skipped:",
// "Timeout:" (which wins). Expected failures count as passed (the test did
// what it declared), unexpected passes and timeouts as failed. Names are
// meson's test names (with "suite:" or "subproject:" prefixes when it prints
// them).
type meson struct {
	t     tally
	inSum bool
	sum   counts
}

func newMeson() *meson { return &meson{} }

func (m *meson) framework() string { return "meson" }
func (m *meson) recognised() bool  { return m.t.seen }
func (m *meson) live() counts      { return m.t.live() }

var (
	mesonLine = regexp.MustCompile(`^\s*\d+/\d+ +(.+?) +(OK|FAIL|SKIP|EXPECTEDFAIL|UNEXPECTEDPASS|TIMEOUT|ERROR|INTERRUPT) +[\d.]+s\b`)
	mesonSum  = regexp.MustCompile(`^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout):\s+(\d+)\s*$`)
)

func (m *meson) line(s string) {
	t := strings.TrimLeft(s, " ")
	if t == "" {
		return
	}
	if t[0] < '0' || t[0] > '9' {
		// not a test line
	} else if r := mesonLine.FindStringSubmatch(s); r != nil {
		switch r[2] {
		case "OK", "EXPECTEDFAIL":
			m.t.outcome(r[1], pass, true)
		case "SKIP":
			m.t.outcome(r[1], skip, true)
		default:
			m.t.outcome(r[1], fail, true)
		}
		return
	}
	switch t[0] {
	case 'O', 'E', 'F', 'U', 'S', 'T':
	default:
		return
	}
	r := mesonSum.FindStringSubmatch(strings.TrimSpace(s))
	if r == nil {
		return
	}
	n := atoi(r[2])
	switch r[1] {
	case "Ok":
		m.inSum, m.sum = true, counts{passed: n}
	case "Expected Fail":
		m.sum.passed += n
	case "Fail", "Unexpected Pass":
		m.sum.failed += n
	case "Skipped":
		m.sum.skipped += n
	case "Timeout":
		if m.inSum {
			m.sum.failed += n
			m.t.closeWith(m.sum)
			m.inSum = false
		}
	}
}

func (m *meson) final() *Summary {
	if m.inSum {
		m.t.closeWith(m.sum)
		m.inSum = false
	}
	return m.t.summary("meson")
}
