package parse

import (
	"regexp"
	"strings"
)

// plain reads the closing line any test harness can print, whatever its
// language: "N passed, M failed" alone on a line, optionally followed by
// ", K skipped" and preceded by one word and a colon ("tests: 3 passed, 0
// failed"). Shell-script suites and home-made runners use it; no named
// runner prints exactly this shape (pytest's "== 1 failed, 2 passed in
// 0.1s ==" has other words around it, jest puts "failed" first and adds a
// total), so it never double-counts them. It names no tests.
type plain struct{ t tally }

func newPlain() *plain { return &plain{} }

func (p *plain) framework() string { return "plain" }
func (p *plain) recognised() bool  { return p.t.seen }
func (p *plain) live() counts      { return p.t.live() }
func (p *plain) final() *Summary   { return p.t.summary("plain") }

var plainLine = regexp.MustCompile(`^\s*(?:[A-Za-z][\w-]*:\s*)?(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$`)

func (p *plain) line(s string) {
	// Every line plainLine matches holds " passed, ": the regexp runs on
	// those only, not on each line of a flood.
	if !strings.Contains(s, " passed, ") {
		return
	}
	if m := plainLine.FindStringSubmatch(s); m != nil {
		sk := 0
		if m[3] != "" {
			sk = atoi(m[3])
		}
		p.t.closeWith(counts{atoi(m[1]), atoi(m[2]), sk})
	}
}
