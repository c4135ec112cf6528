package parse

import (
	"regexp"
	"strings"
)

// cargo reads libtest output (cargo test): each test binary and the doc-tests
// print "running N tests", one "test NAME ... ok|FAILED|ignored" line per test
// and a "test result:" line; a workspace prints one per binary per crate, and
// all are summed. "ignored" counts as skipped; "measured" and "filtered out"
// are not counted.
//
// Names are libtest's own, qualified by the test binary cargo says it is
// running, which makes them Rust paths: "calc::tests::add_works" (unit tests
// of crate calc), "it::integration_add" (tests/it.rs); every crate of a
// workspace has its own "tests::it_works", so bare names would collide.
// Doc-tests are "calc::src/lib.rs - add": their " (line N)" suffix is
// dropped, because an edit above the doc comment moves the line and the same
// doc-test must keep its name across hypotheses. Without cargo's "Running"
// lines (a test binary run by hand, or cargo test -q, which prints dots and
// "NAME --- FAILED" only for failures) names stay bare.
type cargo struct {
	t       tally
	capture bool   // inside a test's output that cargo nextest replays
	binary  string // the test binary or doc-test crate the next tests belong to
}

func newCargo() *cargo { return &cargo{} }

func (c *cargo) framework() string { return "cargo" }
func (c *cargo) recognised() bool  { return c.t.seen }
func (c *cargo) live() counts      { return c.t.live() }
func (c *cargo) final() *Summary   { return c.t.summary("cargo") }

var (
	cargoRunning = regexp.MustCompile(`^running \d+ tests?$`)
	cargoResult  = regexp.MustCompile(`^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored`)
	cargoDocLine = regexp.MustCompile(` \(line \d+\)$`)
	// "Running unittests src/lib.rs (target/debug/deps/calc-0123abcd)",
	// "Running tests/it.rs (target/debug/deps/it-4567ef)", "Doc-tests calc".
	cargoRunningBin = regexp.MustCompile(`^\s*Running .*\(([^()]+)\)$`)
	cargoDocTests   = regexp.MustCompile(`^\s*Doc-tests (\S+)$`)
	cargoHash       = regexp.MustCompile(`-[0-9a-f]{8,}(?:\.exe)?$`)
)

// nextestCapture heads a failing test's captured output in nextest's report.
// That output is the test binary's own libtest chatter ("running 1 test",
// "test result: FAILED. 0 passed; 1 failed"), which must not count as a
// cargo test run of its own.
var nextestCapture = regexp.MustCompile(`^(?:---|─+) STD(?:OUT|ERR|OUT/STDERR|OUT and STDERR):`)

func (c *cargo) line(s string) {
	if strings.Contains(s, " STD") && nextestCapture.MatchString(s) {
		c.capture = true
		return
	}
	if c.capture {
		if nextestShape(s) && (nextestLine.MatchString(s) || nextestSummary.MatchString(s)) {
			c.capture = false
		}
		return
	}
	if t := strings.TrimLeft(s, " "); strings.HasPrefix(t, "Running ") || strings.HasPrefix(t, "Doc-tests ") {
		if m := cargoRunningBin.FindStringSubmatch(s); m != nil {
			bin := m[1][strings.LastIndexAny(m[1], "/\\")+1:]
			c.binary = cargoHash.ReplaceAllString(bin, "")
		} else if m := cargoDocTests.FindStringSubmatch(s); m != nil {
			c.binary = m[1]
		}
		return
	}
	switch {
	case strings.HasPrefix(s, "running ") && cargoRunning.MatchString(s):
		// A new binary: a previous one that died without its summary keeps
		// what its lines counted.
		c.t.closeLive()
		c.t.seen = true
	case strings.HasPrefix(s, "test result: "):
		if m := cargoResult.FindStringSubmatch(s); m != nil {
			c.t.closeWith(counts{atoi(m[1]), atoi(m[2]), atoi(m[3])})
		}
	case strings.HasSuffix(s, " --- FAILED") && c.t.seen && !strings.ContainsAny(s[:len(s)-len(" --- FAILED")], " \t"):
		// cargo test -q prints dots, and "NAME --- FAILED" for each
		// failure; the counts come from "test result:".
		name := s[:len(s)-len(" --- FAILED")]
		if c.binary != "" {
			name = c.binary + "::" + name
		}
		c.t.outcome(name, fail, false)
	case strings.HasPrefix(s, "test ") && strings.Contains(s, " ... "):
		i := strings.LastIndex(s, " ... ")
		if i < 5 { // "test ... ok": no name
			return
		}
		name, res := s[5:i], s[i+5:]
		if strings.HasSuffix(name, ")") {
			name = cargoDocLine.ReplaceAllString(name, "")
		}
		if c.binary != "" {
			name = c.binary + "::" + name
		}
		switch {
		case res == "ok":
			c.t.outcome(name, pass, true)
		case res == "FAILED":
			c.t.outcome(name, fail, true)
		case res == "ignored" || strings.HasPrefix(res, "ignored, "):
			c.t.outcome(name, skip, true)
		}
	}
}

// nextest reads cargo nextest run: one "PASS [ 0.004s] binary test" line per
// test, and "Summary [...] N tests run: P passed, F failed, S skipped". After
// the summary nextest repeats the failing tests' lines; those are not counted
// again. Names are nextest's "binary-id test-name" ("calc tests::sub_works").
// Timed-out, crashed (SIG*) and leaky-failing tests count as failed; FLAKY
// (failed, then passed on retry) as passed.
type nextest struct {
	t     tally
	after bool // past the Summary line of the current run
}

func newNextest() *nextest { return &nextest{} }

func (n *nextest) framework() string { return "nextest" }
func (n *nextest) recognised() bool  { return n.t.seen }
func (n *nextest) live() counts      { return n.t.live() }
func (n *nextest) final() *Summary   { return n.t.summary("nextest") }

var (
	nextestLine    = regexp.MustCompile(`^\s*([A-Z][A-Z-]*(?: [A-Z]+)?) \[[ \d.:smh]*\] (?:\(\s*\d+/\d+\) )?(\S+) (.+?)\s*$`)
	nextestSummary = regexp.MustCompile(`^\s*Summary \[[ \d.:smh]*\] +(\d+) tests? run: (.*)$`)
	nextestStart   = regexp.MustCompile(`^\s*Starting \d+ tests? across \d+ binar`)
)

// nextestShape is a cheap test for "  STATUS [": the regexp only runs on
// lines that have it.
func nextestShape(s string) bool {
	t := strings.TrimLeft(s, " ")
	i := strings.IndexByte(t, ' ')
	return i > 0 && t[0] >= 'A' && t[0] <= 'Z' && i+1 < len(t) && t[i+1] == '['
}

func (n *nextest) line(s string) {
	if !strings.Contains(s, " [") && !strings.Contains(s, "Starting ") {
		return
	}
	if nextestStart.MatchString(s) {
		n.t.closeLive()
		n.after = false
		return
	}
	if m := nextestSummary.FindStringSubmatch(s); m != nil {
		var c counts
		for _, part := range strings.Split(m[2], ",") {
			num, word, ok := numWord(part)
			if !ok {
				continue
			}
			switch {
			case strings.HasPrefix(word, "passed"):
				c.passed += num
			case strings.HasPrefix(word, "failed"), strings.HasPrefix(word, "timed out"):
				c.failed += num
			case strings.HasPrefix(word, "skipped"):
				c.skipped += num
			}
		}
		n.t.closeWith(c)
		n.after = true
		return
	}
	if !nextestShape(s) {
		return
	}
	m := nextestLine.FindStringSubmatch(s)
	if m == nil {
		return
	}
	name := m[2] + " " + m[3]
	status := m[1]
	var o int
	switch {
	case status == "PASS" || status == "FLAKY" || status == "LEAK":
		o = pass
	case status == "SKIP":
		o = skip
	case status == "FAIL" || status == "TIMEOUT" || status == "ABORT" || status == "LEAK-FAIL" ||
		strings.HasPrefix(status, "SIG"):
		o = fail
	default: // TRY 2 FAIL, RETRY, SLOW, START...: progress, not outcomes
		return
	}
	n.t.outcome(name, o, !n.after)
}
